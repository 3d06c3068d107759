import type { IntegrationsConfig } from '@caravel/integrations';
import { FakeGitHub } from '@caravel/testing';
import { generateKeyPairSync } from 'node:crypto';
import { failingCheckNames, githubPullRequestState } from './pull-request-state.port.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const repository = { owner: 'acme', name: 'widgets' };
const HEAD = 'a'.repeat(40);
const BASE = 'b'.repeat(40);

// The CI sweep's and the base-branch rule's reads, through Octokit, against the fake GitHub.
describe('githubPullRequestState (the pull request as the App reads it)', () => {
  let github: FakeGitHub;

  beforeEach(async () => {
    github = new FakeGitHub({ app: { id: '42', publicKey } }).addRepository('acme/widgets');
    await github.start();
    github.addUserToken('ghp_ci', 'ci-bot');
    const pull = { title: 't', body: '', draft: false, head: 'caravel/x', base: 'main' };
    github.state.pulls.set('acme/widgets', [
      { ...pull, number: 7, state: 'open', headSha: HEAD, baseSha: BASE, requestedReviewers: [] },
      {
        ...pull,
        number: 8,
        state: 'open',
        headSha: HEAD,
        mergeable: false,
        mergeableState: 'dirty',
        requestedReviewers: [],
      },
      {
        ...pull,
        number: 9,
        state: 'closed',
        mergedAt: '2026-12-01T10:00:00Z',
        requestedReviewers: [],
      },
    ]);
  });

  afterEach(() => github.close());

  const port = () => {
    const config: IntegrationsConfig = {
      github: { apiUrl: github.origin, webUrl: github.origin, app: { id: '42', privateKey: PEM } },
      slack: {},
      linear: {},
      jira: {},
      confluence: {},
    };
    return githubPullRequestState(config);
  };

  const postStatus = (sha: string, body: Record<string, string>) =>
    fetch(`${github.origin}/repos/acme/widgets/statuses/${sha}`, {
      method: 'POST',
      headers: { authorization: 'Bearer ghp_ci', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('reads a conflict, a merge and an open pull request in GitHub’s shape', async () => {
    expect(await port().read(repository, 8)).toEqual({
      state: 'open',
      headSha: HEAD,
      mergeable: false,
    });
    expect(await port().read(repository, 9)).toMatchObject({ state: 'merged' });
    expect(await port().read(repository, 7)).toEqual({
      state: 'open',
      headSha: HEAD,
      mergeable: null,
    });
  });

  it('names the checks failing at the base commit: check runs and commit statuses, the latest of each', async () => {
    const runs = [
      { name: 'lint', conclusion: 'failure', sha: BASE },
      { name: 'build', conclusion: 'success', sha: BASE },
      { name: 'types', conclusion: 'failure', sha: HEAD },
      { name: 'x'.repeat(400), conclusion: 'failure', sha: BASE },
    ];
    github.reviews.checkRuns.set(
      'acme/widgets',
      runs.map((run, i) => ({
        id: i + 1,
        node_id: `CR_${i}`,
        name: run.name,
        head_sha: run.sha,
        status: 'completed',
        conclusion: run.conclusion,
        details_url: null,
        started_at: null,
        completed_at: null,
        output: { title: null, summary: null },
        html_url: `${github.origin}/acme/widgets/runs/${i + 1}`,
      })),
    );
    expect((await postStatus(BASE, { state: 'error', context: 'ci/legacy' })).status).toBe(201);
    await postStatus(BASE, { state: 'failure', context: 'ci/deploy' });
    await postStatus(BASE, { state: 'success', context: 'ci/deploy' });
    expect((await postStatus(BASE, { state: 'broken', context: 'x' })).status).toBe(422);

    expect(await port().failingOnBase(repository, 7)).toEqual(new Set(['ci/legacy', 'lint']));
    // A pull request whose base GitHub did not name: nothing is known to fail there.
    expect(await port().failingOnBase(repository, 8)).toEqual(new Set());
    await expect(port().failingOnBase({ owner: 'elsewhere', name: 'x' }, 7)).rejects.toThrow(
      /found nothing/,
    );
  });
});

describe('failingCheckNames', () => {
  it('leaves out what does not read as a check (an unknown state, an overlong name)', () => {
    expect(
      failingCheckNames([
        { kind: 'check_run', name: 'lint', status: 'completed', conclusion: 'failure' },
        { kind: 'check_run', name: 'odd', status: 'completed', conclusion: 'exploded' },
        { kind: 'status', name: 'n'.repeat(301), state: 'failure' },
        { kind: 'status', name: 'ci', state: 'pending' },
        'not a check',
      ]),
    ).toEqual(new Set(['lint']));
  });
});
