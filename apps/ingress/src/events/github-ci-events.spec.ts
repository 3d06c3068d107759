import { CiCheckReportedV1, githubCommitThreadId, githubThreadId } from '@caravel/contracts';
import { mapGithubEvent } from './github-event.mapper.js';

const HEAD = '34c5c7793cb3b279e22454cb6750c80560547b3a';
const repository = {
  name: 'widgets',
  owner: { login: 'acme', type: 'Organization' },
  html_url: 'https://github.com/acme/widgets',
};
const github = (event: string, payload: unknown) =>
  mapGithubEvent({ event, deliveryId: 'guid-ci', payload }, { botHandle: 'caravel' });
const run = (fields: Record<string, unknown>) => ({
  head_sha: HEAD,
  pull_requests: [{ number: 7, url: 'https://api.github.com/repos/acme/widgets/pulls/7' }],
  ...fields,
});

describe('GitHub CI deliveries', () => {
  it('maps a completed check run to one check on its head and pull requests', () => {
    const decision = github('check_run', {
      action: 'completed',
      check_run: run({
        name: 'typecheck',
        status: 'completed',
        conclusion: 'failure',
        details_url: 'https://ci.example/runs/93',
      }),
      repository,
    });
    expect(decision).toEqual({
      kind: 'ci',
      source: 'github',
      event: 'check_run.completed',
      ciEvent: 'check_run',
      deliveryId: 'guid-ci',
      semanticKey: null,
      threadId: githubThreadId({ owner: 'acme', repo: 'widgets', number: 7 }),
      repository: { owner: 'acme', name: 'widgets' },
      headSha: HEAD,
      pullRequests: [{ number: 7, url: 'https://github.com/acme/widgets/pull/7' }],
      check: {
        kind: 'check_run',
        name: 'typecheck',
        status: 'completed',
        conclusion: 'failure',
        url: 'https://ci.example/runs/93',
      },
    });
    if (decision.kind !== 'ci') throw new Error('not a ci decision');
    const { threadId, deliveryId, ciEvent, headSha, pullRequests, check } = decision;
    const data = { threadId, deliveryId, headSha, pullRequests, check, source: 'github' };
    expect(
      CiCheckReportedV1.dataSchema.parse({
        ...data,
        event: ciEvent,
        repository: decision.repository,
      }),
    ).toMatchObject({ check: { name: 'typecheck' } });
  });

  it('names a suite after its app and a workflow run after its workflow', () => {
    expect(
      github('check_suite', {
        action: 'completed',
        check_suite: run({
          app: { name: 'GitHub Actions' },
          status: 'completed',
          conclusion: 'success',
        }),
        repository,
      }),
    ).toMatchObject({ kind: 'ci', check: { name: 'GitHub Actions', conclusion: 'success' } });
    expect(
      github('workflow_run', {
        action: 'requested',
        workflow_run: run({ name: 'CI', status: 'queued', conclusion: null }),
        repository,
      }),
    ).toMatchObject({ kind: 'ci', check: { name: 'CI', status: 'queued', conclusion: null } });
  });

  it('maps a commit status to a status check keyed by its commit, with no pull request', () => {
    expect(
      github('status', {
        sha: HEAD,
        context: 'ci/legacy',
        state: 'error',
        target_url: 'javascript:alert(1)',
        repository,
      }),
    ).toEqual(
      expect.objectContaining({
        kind: 'ci',
        threadId: githubCommitThreadId({ owner: 'acme', repo: 'widgets', sha: HEAD }),
        pullRequests: [],
        check: { kind: 'status', name: 'ci/legacy', state: 'error' },
      }),
    );
  });

  it('sends a state GitHub adds later to the owner rather than dropping it', () => {
    expect(
      github('check_run', {
        check_run: run({ name: 'e2e', status: 'completed', conclusion: 'exploded' }),
        repository,
      }),
    ).toMatchObject({ check: { status: 'completed', conclusion: 'stale' } });
  });

  it('only records a delivery that names no check', () => {
    expect(
      github('check_run', { check_run: run({ status: 'completed' }), repository }),
    ).toMatchObject({ kind: 'record' });
  });
});
