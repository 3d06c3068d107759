import type { PullRequestHost } from '@caravel/integrations';
import type { SandboxBrokerClient } from '@caravel/sandbox';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { strictMock } from '@caravel/testing/doubles';
import { GitScm } from './git.scm.js';
import { GitHubScm } from './github.scm.js';
import { HeldScm } from './held.scm.js';
import { scmForAttempt, scmForRun } from './run-scm.js';

type PushRequest = Parameters<SandboxBrokerClient['push']>[0];

const repository = { owner: 'acme', name: 'widgets' };

/** A thread's workspace whose broker answers pushes and commits, and records what it was asked. */
function workspaceWith(origin: string | null = 'https://git.example.org/acme/widgets.git') {
  const pushes: PushRequest[] = [];
  const commits: string[] = [];
  const broker = strictMock<SandboxBrokerClient>(
    {
      push: (request) => {
        pushes.push(request);
        return Promise.resolve({ pushed: true, origin, commitSha: 'c0ffee' });
      },
      commitAll: (_threadId, message) => {
        commits.push(message);
        return Promise.resolve('beef');
      },
    },
    'broker',
  );
  const workspace = strictMock<ThreadWorkspace>(
    {
      threadId: 't-1',
      branch: 'caravel/t-1',
      origin,
      repository,
      broker,
      sandbox: strictMock<ThreadWorkspace['sandbox']>({ id: 'sbx-1' }, 'sandbox'),
    },
    'workspace',
  );
  return { workspace, pushes, commits };
}

describe('GitScm', () => {
  it('commits and pushes the branch to the repository on record in one broker request', async () => {
    const { workspace, pushes, commits } = workspaceWith();

    const outcome = await new GitScm(workspace).commitAndPush({ message: 'Fix slugify' });

    expect(outcome).toEqual({ branch: 'caravel/t-1', commitSha: 'c0ffee' });
    expect(pushes).toEqual([
      { threadId: 't-1', branch: 'caravel/t-1', repository, commitMessage: 'Fix slugify' },
    ]);
    expect(commits).toEqual([]);
  });

  it('stands the pushed branch in for the pull request, once per thread, as asked (draft or not)', async () => {
    const { workspace } = workspaceWith();
    const scm = new GitScm(workspace);
    expect(await scm.findOpenPullRequest('caravel/t-1')).toBeNull();

    const opened = await scm.openPullRequest({
      branch: 'caravel/t-1',
      title: 'T',
      body: 'B',
      draft: false,
    });

    expect(opened).toEqual({
      number: 0,
      url: 'https://git.example.org/acme/widgets.git#caravel/t-1',
      draft: false,
      standIn: 'branch',
    });
    expect(await scm.findOpenPullRequest('caravel/t-1')).toEqual(opened);
    expect(await scm.findOpenPullRequest('other')).toBeNull();
    expect(await scm.updatePullRequest(0, { title: 'T2', body: 'B' })).toEqual(opened);
  });

  it('names the sandbox when the workspace has no remote, and refuses an update before a publish', async () => {
    const { workspace } = workspaceWith(null);
    const scm = new GitScm(workspace);
    expect(() => scm.updatePullRequest(0, { title: 'T', body: '' })).toThrow(
      /no branch has been published/,
    );

    const opened = await scm.openPullRequest({ branch: 'caravel/t-1', title: 'T', body: '' });
    expect(opened).toMatchObject({ url: 'sandbox:sbx-1#caravel/t-1', draft: true });
  });
});

describe('GitHubScm', () => {
  it('pushes through the broker like a plain remote and opens the pull request on GitHub', async () => {
    const { workspace, pushes } = workspaceWith();
    const pull = { number: 12, url: 'https://github.example/acme/widgets/pull/12', draft: true };
    const host = strictMock<PullRequestHost>(
      {
        openPullRequest: () => Promise.resolve(pull),
        findOpenPullRequest: () => Promise.resolve(pull),
        updatePullRequest: () => Promise.resolve({ ...pull, draft: false }),
      },
      'host',
    );
    const scm = new GitHubScm(workspace, host);

    await scm.commitAndPush({ message: 'Fix' });
    const draft = { branch: 'caravel/t-1', title: 'T', body: 'B' };

    expect(pushes).toHaveLength(1);
    expect(await scm.openPullRequest(draft)).toBe(pull);
    expect(await scm.findOpenPullRequest('caravel/t-1')).toBe(pull);
    expect(await scm.updatePullRequest(12, { title: 'T', body: 'B2' })).toMatchObject({
      draft: false,
    });
  });
});

describe('HeldScm', () => {
  it("commits in the attempt's sandbox, pushes nothing, and holds what it asked to publish", async () => {
    const { workspace, pushes, commits } = workspaceWith();
    const scm = new HeldScm(workspace, 'attempt 2');

    const outcome = await scm.commitAndPush({ message: 'Try 2' });
    const placeholder = await scm.openPullRequest({
      branch: 'caravel/t-1',
      title: 'T',
      body: 'B',
    });
    await scm.updatePullRequest(0, { title: 'T2', body: 'B2' });

    expect(outcome).toEqual({ branch: 'caravel/t-1', commitSha: 'beef' });
    expect(commits).toEqual(['Try 2']);
    expect(pushes).toEqual([]);
    expect(placeholder).toEqual({ number: 0, url: 'attempt 2', draft: true, standIn: 'held' });
    expect(scm.held).toEqual({
      commitMessage: 'Try 2',
      pullRequest: { branch: 'caravel/t-1', title: 'T2', body: 'B2' },
    });
    expect(await scm.findOpenPullRequest('caravel/t-1')).toEqual(placeholder);
    expect(await scm.findOpenPullRequest('elsewhere')).toBeNull();
  });
});

describe('scmForRun', () => {
  it('publishes on GitHub when the run has a pull-request host, a plain branch otherwise', () => {
    const { workspace } = workspaceWith();
    expect(scmForRun(workspace, strictMock<PullRequestHost>())).toBeInstanceOf(GitHubScm);
    expect(scmForRun(workspace, null)).toBeInstanceOf(GitScm);
  });

  it("holds an attempt's publication", () => {
    const { workspace } = workspaceWith();
    expect(scmForAttempt(workspace, 1)).toBeInstanceOf(HeldScm);
  });
});
