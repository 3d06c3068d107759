import {
  AnalyzeReviewStyleV1,
  githubReviewThreadId,
  githubThreadId,
  reviewStyleThreadId,
  threadBranch,
} from '@caravel/contracts';
import { CiWatchSweepService, DispatchSweepService } from '@caravel/dispatch';
import { FindingRepository, ReviewStyleRepository, RunRepository, type RunRow } from '@caravel/db';
import { seedRemote } from '@caravel/sandbox/testing';
import {
  FakeGitHub,
  FakeGithubOAuth,
  githubAppEnv,
  githubAppKeys,
  serviceGate,
} from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postGithubWebhook } from './harness/github-webhook.js';
import { hostGit, mentionAndWait, NOTES_REPO, noteModel } from './harness/issue-notes.js';
import { scriptedModel, until, type ScriptedResponse } from './harness/scenario-run.js';
import { startRolePlatform, type RolePlatform } from './harness/service-roles.js';

// The whole platform on its per-service roles, as a deployment with DATABASE_MIGRATE=false runs
// it: the owner migrates and grants (caravel db migrate, caravel db grants --apply), then each of
// the seven services runs in its own host as caravel_<service>. An issue mention becomes a draft
// pull request and a reply, a follow-up in the thread adds to it, a pull request is auto-reviewed,
// an admin reads the thread on the dashboard, and dispatch sweeps: none of it may meet a
// permission error (42501), which a table the table map missed would raise mid-run in production.
const SECRET = 'service-roles-secret';
const APP_ID = '4344';
const ISSUE = 21;
const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number: ISSUE });
/** The analyzer's model: lists the merged pull requests (none), then saves a style. */
const ANALYSIS: ScriptedResponse[] = [
  { tool_calls: [{ name: 'list_merged_pull_requests', args: {} }] },
  {
    tool_calls: [
      {
        name: 'save_review_style_prompt',
        args: {
          prompt: `Name values after what they hold. ${Array.from({ length: 440 }, (_, i) => `rule${i}`).join(' ')}`,
          summary: 'Names say what values hold.',
        },
      },
    ],
  },
  { content: 'Saved.' },
];
/** The reviewer's model: reads the diff, finds one thing on the first note, publishes. */
const REVIEW: ScriptedResponse[] = [
  { tool_calls: [{ name: 'fetch_review_diff', args: {} }] },
  {
    tool_calls: [
      {
        name: 'add_finding',
        args: {
          severity: 'high',
          confidence: 'high',
          category: 'maintainability',
          title: 'A note that says nothing',
          file: 'NOTE-1.md',
          start_line: 1,
          description: 'The note reads only "note".',
        },
      },
    ],
  },
  { tool_calls: [{ name: 'publish_review', args: {} }] },
  { content: 'Done.' },
];

const gate = await serviceGate(['nats', 'postgres']);

gate.describe('the platform, each service on its own database role', () => {
  let dir: string;
  let github: FakeGitHub;
  let oauth: FakeGithubOAuth;
  let bare: string;
  let platform: RolePlatform;
  const seen = new Set<string>();

  beforeAll(async () => {
    const { privateKey, publicKey } = githubAppKeys();
    dir = await mkdtemp(join(tmpdir(), 'caravel-service-roles-'));
    execFileSync('chmod', ['755', dir]);
    github = new FakeGitHub({ root: join(dir, 'remotes'), app: { id: APP_ID, publicKey } });
    github.addRepository(NOTES_REPO);
    github.collaborators.add(NOTES_REPO, 'hubot'); // so hubot's token, never an admin, sees it
    bare = await seedRemote(join(dir, 'remotes'), NOTES_REPO, '# widgets\n');
    const origin = await github.start();
    oauth = new FakeGithubOAuth();
    await oauth.listen();
    platform = await startRolePlatform({
      GITHUB_WEBHOOK_SECRET: SECRET,
      ...githubAppEnv(APP_ID, privateKey, origin),
      TRUSTED_AUTHORS: 'github:octocat',
      CARAVEL_MODEL: await noteModel(dir),
      AUTO_REVIEW_REPOS: NOTES_REPO,
      REVIEWER_MODEL: await scriptedModel(dir, 'reviewer', REVIEW),
      ANALYZER_MODEL: await scriptedModel(dir, 'analyzer', ANALYSIS),
      GITHUB_OAUTH_CLIENT_ID: oauth.clientId,
      GITHUB_OAUTH_CLIENT_SECRET: oauth.clientSecret,
      GITHUB_OAUTH_URL: oauth.origin,
      GITHUB_OAUTH_API_URL: oauth.origin,
      DASHBOARD_ADMINS: 'hubot',
    });
  }, 90_000);

  afterAll(async () => {
    await platform?.close();
    await oauth?.close();
    await github?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Mentions Caravel on the issue (comment `commentId`) and waits for the run it starts to end. */
  const mentionRun = (commentId: number): Promise<RunRow> =>
    mentionAndWait(platform.hosts.ingress.url, SECRET, platform.database, {
      issue: ISSUE,
      commentId,
      seen,
    });

  it('turns an issue mention into a draft pull request and answers the mention', async () => {
    const run = await mentionRun(9_100_001);
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    const branch = threadBranch(threadId);
    const pull = github.state.pulls.get(NOTES_REPO)?.find((p) => p.head === branch);
    expect(pull).toMatchObject({ state: 'open', draft: true });
    expect(hostGit(bare, 'show', `${branch}:NOTE-1.md`)).toBe('note');
    // The mention was answered on GitHub: acknowledged on the comment, the pull request opened.
    const calls = github.calls.map((call) => `${call.method} ${call.path}`);
    expect(calls).toContain(`POST /repos/${NOTES_REPO}/issues/comments/9100001/reactions`);
    expect(calls).toContain(`POST /repos/${NOTES_REPO}/pulls`);
  }, 60_000);

  it('runs a follow-up in the same thread on top of the first run', async () => {
    const run = await mentionRun(9_100_002);
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(hostGit(bare, 'show', `${threadBranch(threadId)}:NOTE-2.md`)).toBe('note');
  }, 60_000);

  it('reviews an auto-reviewed pull request and publishes its finding', async () => {
    // Pull request 40 carries the thread's branch (two notes) as its head.
    const number = 40;
    const head = hostGit(bare, 'rev-parse', threadBranch(threadId));
    hostGit(bare, 'update-ref', `refs/heads/pull-${number}`, head);
    github.setReviewablePull(NOTES_REPO, number, {
      author: 'octocat',
      commentable: { 'NOTE-1.md': { RIGHT: [1], LEFT: [] } },
    });
    const opened = {
      action: 'opened',
      number,
      pull_request: {
        id: 800_040,
        number,
        draft: false,
        head: { sha: head, ref: `pull-${number}` },
        user: { login: 'octocat', type: 'User' },
        author_association: 'MEMBER',
      },
      repository: {
        name: 'widgets',
        private: true,
        owner: { login: 'acme', type: 'Organization' },
      },
      sender: { login: 'octocat', type: 'User' },
    };
    const hook = await postGithubWebhook(
      platform.hosts.ingress.url,
      SECRET,
      'pull_request',
      opened,
    );
    const reviewThread = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number });
    expect(await hook.json()).toEqual({ accepted: true, threadId: reviewThread });
    const findings = new FindingRepository(platform.database.db);
    const ledger = await until(
      () =>
        findings.getLedger(reviewThread).then((l) => (l?.lastReviewedSha === head ? l : undefined)),
      "the review of the pull request's head",
    );
    expect(ledger).toMatchObject({ number, headSha: head });
    expect((await findings.list(reviewThread)).map((f) => [f.file, f.startLine])).toEqual([
      ['NOTE-1.md', 1],
    ]);
    expect(github.reviews.reviews.get(`${NOTES_REPO}#${number}`)).toHaveLength(1);
  }, 60_000);

  it('learns a first review style for the repository (analyzer)', async () => {
    // No merged pull request to read: the bootstrap may save at once.
    await platform.bus.publish(
      AnalyzeReviewStyleV1,
      AnalyzeReviewStyleV1.create(
        {
          threadId: reviewStyleThreadId({ owner: 'acme', repo: 'widgets' }),
          repository: { owner: 'acme', name: 'widgets' },
          mode: 'bootstrap',
          requestedBy: 'cli',
          requestId: randomUUID(),
        },
        { source: 'platform-scenario' },
      ),
    );
    const styles = new ReviewStyleRepository(platform.database.db);
    const style = await until(
      () => styles.latest(NOTES_REPO).then((s) => s ?? undefined),
      'a saved review style',
    );
    expect(style).toMatchObject({ version: 1, mode: 'bootstrap' });
  }, 60_000);

  /**
   * The dashboard's API as hubot, an admin signed in over OAuth: `call` expects `status` (200
   * unless said) and answers the body; a body makes it an action, sent from the dashboard's origin.
   */
  async function adminApi() {
    const dashboard = platform.hosts.dashboard.url;
    const cookie = await signIn(dashboard, oauth);
    return async (method: string, path: string, body?: unknown, status = 200) => {
      const answer = await fetch(`${dashboard}/api/${path}`, {
        method,
        headers: body
          ? { cookie, origin: dashboard, 'content-type': 'application/json' }
          : { cookie },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect({ path, status: answer.status }).toEqual({ path, status });
      return answer.json() as Promise<Record<string, unknown>>;
    };
  }

  it("shows an admin the thread and its run events on the dashboard's API", async () => {
    const call = await adminApi();
    expect(JSON.stringify(await call('GET', 'threads'))).toContain(threadId);
    expect(await call('GET', `threads/${threadId}`)).toMatchObject({ thread: { id: threadId } });
    const events = JSON.stringify(await call('GET', `threads/${threadId}/events`));
    for (const runId of seen) expect(events).toContain(runId);
    for (const path of ['runs', `threads/${threadId}/plans`, 'dead-letters', 'reviews'])
      await call('GET', path);
  }, 60_000);

  it('lets an admin change settings on the dashboard and read with a personal token', async () => {
    const call = await adminApi();
    await call('PUT', 'instructions/github:hubot', { instructions: 'Keep notes short.' });
    await call('PUT', 'repositories/acme/widgets', { agent: true, autoReview: true });
    await call('PUT', 'team-defaults', {});
    const { token } = await call('POST', 'tokens', { name: 'scripts', scope: 'read' }, 201);
    const read = await fetch(`${platform.hosts.dashboard.url}/api/threads/${threadId}`, {
      headers: { authorization: `Bearer ${String(token)}` },
    });
    expect(read.status).toBe(200);
  }, 60_000);

  it("takes an admin's follow-up and stop from the dashboard", async () => {
    const call = await adminApi();
    const runs = new RunRepository(platform.database.db);
    await call('POST', `threads/${threadId}/actions`, { text: 'one more note' }, 202);
    const run = await until(async () => {
      const all = await runs.listByThread(threadId);
      return all.find((r) => r.finishedAt && !seen.has(r.id));
    }, 'the follow-up run from the dashboard');
    seen.add(run.id);
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(hostGit(bare, 'show', `${threadBranch(threadId)}:NOTE-3.md`)).toBe('note');
    await call('POST', `threads/${threadId}/stop`, {}, 202);
  }, 60_000);

  it("runs dispatch's sweeps", async () => {
    const sweep = await platform.hosts.dispatch.app.get(DispatchSweepService).sweep();
    expect(sweep).toMatchObject({ failed: [] });
    expect(await platform.hosts.dispatch.app.get(CiWatchSweepService).sweep()).not.toBeNull();
  }, 60_000);

  it('met no permission error in any service', () => {
    expect(platform.refusals).toEqual([]);
    expect(platform.logs.filter((line) => /42501|permission denied/i.test(line))).toEqual([]);
  });
});

/** Signs hubot (an admin) in through the fake OAuth as a browser follows the redirects. */
async function signIn(dashboard: string, oauth: FakeGithubOAuth): Promise<string> {
  oauth.account = { login: 'hubot', id: 7 };
  const start = await fetch(`${dashboard}/auth/github`, { redirect: 'manual' });
  const nonce = start.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const authorize = await fetch(start.headers.get('location') ?? '', { redirect: 'manual' });
  const back = await fetch(authorize.headers.get('location') ?? '', {
    redirect: 'manual',
    headers: { cookie: nonce },
  });
  const session = back.headers.getSetCookie().find((c) => c.startsWith('caravel_session='));
  if (!session) throw new Error(`no session for hubot: ${back.headers.get('location')}`);
  return session.split(';')[0] ?? '';
}
