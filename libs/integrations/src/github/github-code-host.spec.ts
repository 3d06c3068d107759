import { AppError } from '@caravel/errors';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeGitHub, rateLimited } from '@caravel/testing';
import { GitHubApi } from './github-client.js';
import { GitHubCodeHost } from './github-code-host.js';
import { staticGitHubTokens } from './github-tokens.js';

const repository = { owner: 'acme', name: 'widgets' };
const USER_TOKEN = 'gho_user_token_1';

describe('GitHubCodeHost against the fake GitHub with the real Octokit', () => {
  let github: FakeGitHub;
  let waits: number[];

  const host = (token: string | null = USER_TOKEN): GitHubCodeHost =>
    new GitHubCodeHost(
      new GitHubApi({
        baseUrl: github.origin,
        tokens: staticGitHubTokens(token ?? undefined),
        retry: { sleep: (ms) => Promise.resolve(void waits.push(ms)) },
      }),
      repository,
    );

  beforeEach(async () => {
    waits = [];
    github = new FakeGitHub().addRepository('acme/widgets', { defaultBranch: 'trunk' });
    github.addUserToken(USER_TOKEN, 'octocat');
    await github.start();
  });

  afterEach(() => github.close());

  it('opens a draft pull request on the default branch, then updates it instead of opening another', async () => {
    const first = await host().openPullRequest({
      branch: 'caravel/t1',
      title: 'Fix',
      body: 'a',
    });
    const second = await host().openPullRequest({
      branch: 'caravel/t1',
      title: 'Fix 2',
      body: 'b',
    });

    expect(first).toEqual({
      number: second.number,
      url: expect.stringContaining('/pull/'),
      draft: true,
    });
    const pulls = github.state.pulls.get('acme/widgets') ?? [];
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({
      base: 'trunk',
      head: 'caravel/t1',
      title: 'Fix 2',
      body: 'b',
    });
    await expect(host().findOpenPullRequest('caravel/t1')).resolves.toEqual(second);
    await expect(host().findOpenPullRequest('other')).resolves.toBeNull();
  });

  it("finds a branch's open pull request first, else its latest, and says whether it was merged", async () => {
    const pull = (number: number, state: 'open' | 'closed', extra = {}) => ({
      number,
      title: `#${number}`,
      body: '',
      draft: true,
      state,
      head: 'caravel/t9',
      base: 'trunk',
      requestedReviewers: [],
      headSha: String(number).repeat(40).slice(0, 40),
      ...extra,
    });
    github.state.pulls.set('acme/widgets', [
      pull(3, 'closed', { mergedAt: '2026-12-01T10:00:00Z' }),
      pull(5, 'closed'),
      { ...pull(6, 'open'), head: 'other' },
    ]);

    await expect(host().branchPullRequest('caravel/t9')).resolves.toEqual({
      number: 5,
      url: expect.stringContaining('/pull/5'),
      draft: true,
      state: 'closed',
      headSha: '5'.repeat(40),
    });
    github.state.pulls.get('acme/widgets')?.splice(1, 1);
    await expect(host().branchPullRequest('caravel/t9')).resolves.toMatchObject({
      number: 3,
      state: 'merged',
      headSha: '3'.repeat(40),
    });
    github.state.pulls.get('acme/widgets')?.push(pull(2, 'open'));
    await expect(host().branchPullRequest('caravel/t9')).resolves.toMatchObject({
      number: 2,
      state: 'open',
    });
    await expect(host().branchPullRequest('caravel/none')).resolves.toBeNull();
  });

  it('compares two commits as GitHub does, and fails on a commit it lacks', async () => {
    const root = await mkdtemp(join(tmpdir(), 'caravel-compare-'));
    try {
      await github.close();
      github = new FakeGitHub({ root }).addRepository('acme/widgets');
      github.addUserToken(USER_TOKEN, 'octocat');
      await github.start();
      const bare = join(root, 'acme', 'widgets.git');
      execFileSync('git', ['init', '--quiet', '--bare', bare]);
      const git = (...args: string[]) =>
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          cwd: bare,
          encoding: 'utf8',
        }).trim();
      const tree = git('hash-object', '-t', 'tree', '-w', '/dev/null');
      const base = git('commit-tree', tree, '-m', 'base');
      const ahead = git('commit-tree', tree, '-p', base, '-m', 'ahead');
      const other = git('commit-tree', tree, '-p', base, '-m', 'other');
      git('update-ref', 'refs/heads/a', ahead);
      git('update-ref', 'refs/heads/o', other);

      await expect(host().compare(base, ahead)).resolves.toBe('ahead');
      await expect(host().compare(ahead, base)).resolves.toBe('behind');
      await expect(host().compare(base, base)).resolves.toBe('identical');
      await expect(host().compare(ahead, other)).resolves.toBe('diverged');
      await expect(host().compare(base, 'f'.repeat(40))).rejects.toMatchObject({
        code: 'NOT_FOUND',
      });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it('opens the pull request ready for review when the request says draft: false', async () => {
    const opened = await host().openPullRequest({
      branch: 'caravel/t2',
      title: 'Ready',
      body: 'c',
      draft: false,
    });

    expect(opened.draft).toBe(false);
    expect(github.state.pulls.get('acme/widgets')).toMatchObject([{ draft: false }]);
  });

  it('opens the pull request against the base the request names', async () => {
    await host().openPullRequest({
      branch: 'caravel/t3',
      title: 'On',
      body: 'd',
      base: 'release-2',
    });
    expect(github.state.pulls.get('acme/widgets')).toMatchObject([{ base: 'release-2' }]);
  });

  it('posts a comment once per idempotency key, finding the earlier one on a retry', async () => {
    const first = await host().comment(7, 'Done: see the PR', 'reply:run-1');
    const again = await host().comment(7, 'Done: see the PR', 'reply:run-1');
    const other = await host().comment(7, 'Another', 'reply:run-2');

    expect(first.created).toBe(true);
    expect(again).toEqual({ ...first, created: false });
    expect(other.created).toBe(true);
    const stored = github.state.issueComments.get('acme/widgets#7') ?? [];
    expect(stored.map((c) => c.body.split('\n')[0])).toEqual(['Done: see the PR', 'Another']);
    expect(stored[0]?.user.login).toBe('octocat');
  });

  it('reacts to a comment and requests reviewers on a pull request', async () => {
    const posted = await host().comment(3, 'hello');
    await host().react({ kind: 'issue-comment', id: posted.id }, 'eyes');
    const pr = await host().openPullRequest({ branch: 'b', title: 't', body: '' });
    const review = await host().requestReview({
      pullRequest: pr.number,
      reviewers: ['hubot'],
      verdictRequested: false,
    });

    expect(github.state.reactions).toEqual([
      { subject: `acme/widgets:issues-comment:${posted.id}`, content: 'eyes', login: 'octocat' },
    ]);
    expect(review.requested).toEqual(['hubot']);
    expect(github.state.pulls.get('acme/widgets')?.[0]?.requestedReviewers).toEqual(['hubot']);
  });

  it('codes bad credentials as UNAUTHENTICATED without echoing the token', async () => {
    const error = await host('gho_wrong')
      .comment(1, 'x')
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED', retryable: false });
    expect((error as AppError).message).toContain('Bad credentials');
    expect(JSON.stringify(error)).not.toContain('gho_wrong');
  });

  it('codes a token scoped to another repository as FORBIDDEN', async () => {
    const other = await github.mint({ repository: 'acme/other' });
    await expect(host(other.token).comment(1, 'x')).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });

  it('codes a missing pull request as NOT_FOUND', async () => {
    await expect(host().updatePullRequest(404, { title: 't', body: 'b' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { status: 404 },
    });
  });

  it('waits out a short 429 retry-after once and succeeds', async () => {
    github.failNext(
      { method: 'POST', path: '/comments' },
      rateLimited(2, { message: 'slow down' }),
    );

    const posted = await host().comment(5, 'after the limit');

    expect(posted.created).toBe(true);
    expect(waits).toEqual([2000]);
    expect(github.callsTo({ method: 'POST', path: '/issues/5/comments' })).toHaveLength(2);
  });

  it('does not hold a call for a long retry-after: RATE_LIMITED with the wait in details', async () => {
    github.failNext({ path: '/comments' }, rateLimited(120, { message: 'slow down' }));

    await expect(host().comment(5, 'x')).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      details: { retryAfterSeconds: 120 },
    });
    expect(waits).toEqual([]);
  });

  it('treats a secondary rate limit (403 with retry-after) as a rate limit', async () => {
    github.failNext(
      { path: '/comments' },
      { ...rateLimited(1, { message: 'secondary' }), status: 403 },
    );

    await expect(host().comment(5, 'x')).resolves.toMatchObject({ created: true });
    expect(waits).toEqual([1000]);
  });

  it('fails cleanly when no GitHub credentials are configured', async () => {
    await expect(host(null).comment(1, 'x')).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: 'GitHub is not configured: set GITHUB_TOKEN to use it.',
    });
    expect(github.calls).toEqual([]);
  });
});
