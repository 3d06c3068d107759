import {
  AnalyzeReviewStyleV1,
  githubReviewThreadId,
  githubThreadId,
  linearThreadId,
  reviewStyleThreadId,
  ScheduleThreadWakeup,
  slackThreadId,
  threadBranch,
} from '@caravel/contracts';
import { CiWatchSweepService, DispatchSweepService } from '@caravel/dispatch';
import { FindingRepository, ReviewStyleRepository, RunRepository, type RunRow } from '@caravel/db';
import { dismissFinding } from '@caravel/findings';
import { seedRemote } from '@caravel/sandbox/testing';
import { bwrapAvailable } from '@caravel/sandbox';
import {
  FakeGitHub,
  FakeGithubOAuth,
  FakeLinear,
  FakeSlack,
  githubAppEnv,
  githubAppKeys,
  serviceGate,
  testEnvironment,
} from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRun, postGithubWebhook } from './harness/github-webhook.js';
import { hostGit, mentionAndWait, NOTES_REPO } from './harness/issue-notes.js';
import { ANALYSIS, LINEAR, NOTES, REVIEW, SLACK, SLACK_TOKEN } from './harness/role-models.js';
import { scriptedModel, until } from './harness/scenario-run.js';
import { postLinearComment, postSlackEvent, reviewSet, signIn } from './harness/role-requests.js';
import { runCaravel, startRolePlatform, type RolePlatform } from './harness/service-roles.js';

// The whole platform on its per-service roles, as a deployment with DATABASE_MIGRATE=false runs
// it: the owner migrates and grants (caravel db migrate, caravel db grants --apply), then each of
// the seven services runs in its own host as caravel_<service>. An issue mention becomes a draft
// pull request and a reply, a follow-up in the thread adds to it, a pull request is auto-reviewed,
// the analyzer learns a style, an admin reads and changes things on the dashboard, a failing check
// brings a fix run, a wakeup fires, the dashboard sends a follow-up, a stop, a fresh sandbox and a
// replay, a Slack mention pauses at its budget and goes on when granted, the eval scheduler runs a
// night on caravel_evals, and dispatch sweeps: none of it may meet a permission error (42501),
// which a table the table map missed would raise mid-run in production.
const SECRET = 'service-roles-secret';
const APP_ID = '4344';
const ISSUE = 21;
const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number: ISSUE });
const gate = await serviceGate(['nats', 'postgres']);

gate.describe('the platform, each service on its own database role', () => {
  let dir: string;
  let github: FakeGitHub;
  let oauth: FakeGithubOAuth;
  let bare: string;
  let slack: FakeSlack;
  let linear: FakeLinear;
  let platform: RolePlatform;
  let reviewerModel: string;
  const seen = new Set<string>();
  // The services' clock (dispatch's wakeups); moved on only where a case says.
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };

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
    slack = new FakeSlack().addToken(SLACK_TOKEN, SLACK.bot).addChannel(SLACK.channel);
    await slack.listen();
    linear = new FakeLinear()
      .addApiKey(LINEAR.key)
      .addTeam({ id: 'team-eng', key: 'ENG', name: 'Engineering' });
    await linear.listen();
    reviewerModel = await scriptedModel(dir, 'reviewer', REVIEW);
    platform = await startRolePlatform(
      {
        GITHUB_WEBHOOK_SECRET: SECRET,
        ...githubAppEnv(APP_ID, privateKey, origin),
        TRUSTED_AUTHORS: 'github:octocat',
        CARAVEL_MODEL: await scriptedModel(dir, 'notes', NOTES),
        AUTO_REVIEW_REPOS: NOTES_REPO,
        REVIEWER_MODEL: reviewerModel,
        ANALYZER_MODEL: await scriptedModel(dir, 'analyzer', ANALYSIS),
        GITHUB_OAUTH_CLIENT_ID: oauth.clientId,
        GITHUB_OAUTH_CLIENT_SECRET: oauth.clientSecret,
        GITHUB_OAUTH_URL: oauth.origin,
        GITHUB_OAUTH_API_URL: oauth.origin,
        DASHBOARD_ADMINS: 'hubot',
        SLACK_SIGNING_SECRET: SLACK.secret,
        SLACK_BOT_USER_ID: SLACK.bot,
        SLACK_BOT_TOKEN: SLACK_TOKEN,
        SLACK_API_URL: slack.apiUrl,
        REPOSITORY_ROUTES: `slack:${SLACK.channel}=${NOTES_REPO}`,
        LINEAR_WEBHOOK_SECRET: LINEAR.secret,
        LINEAR_API_KEY: LINEAR.key,
        LINEAR_API_URL: linear.apiUrl,
      },
      { clock },
    );
  }, 90_000);

  afterAll(async () => {
    await platform?.close();
    await oauth?.close();
    await slack?.close();
    await linear?.close();
    await github?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The next run of `thread` to finish, one not in `seen` (then added to it). */
  async function nextRun(thread: string, what: string): Promise<RunRow> {
    const runs = new RunRepository(platform.database.db);
    const run = await until(async () => {
      const all = await runs.listByThread(thread);
      return all.find((r) => r.finishedAt && !seen.has(r.id));
    }, what);
    seen.add(run.id);
    return run;
  }

  /** Asks the analyzer to learn acme/widgets' review style, as `requestedBy` would. */
  const analyze = (mode: 'bootstrap' | 'continual', requestedBy: string) =>
    platform.bus.publish(
      AnalyzeReviewStyleV1,
      AnalyzeReviewStyleV1.create(
        {
          threadId: reviewStyleThreadId({ owner: 'acme', repo: 'widgets' }),
          repository: { owner: 'acme', name: 'widgets' },
          mode,
          requestedBy,
          requestId: randomUUID(),
        },
        { source: 'platform-scenario' },
      ),
    );

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
    await analyze('bootstrap', 'cli');
    const styles = new ReviewStyleRepository(platform.database.db);
    const style = await until(
      () => styles.latest(NOTES_REPO).then((s) => s ?? undefined),
      'a saved review style',
    );
    expect(style).toMatchObject({ version: 1, mode: 'bootstrap' });
  }, 60_000);

  it("weighs a dismissed finding in the analyzer's continual run (its nightly job)", async () => {
    // A person dismissed the reviewer's finding since the first style.
    const findings = new FindingRepository(platform.database.db);
    const reviewThread = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 40 });
    const [finding] = await findings.list(reviewThread);
    const sha = (await findings.getLedger(reviewThread))?.headSha ?? '';
    const by = { kind: 'person' as const, login: 'octocat' };
    const note = 'Notes only say "note" by design.';
    await findings.update(finding?.id ?? '', (current) =>
      dismissFinding(current, { sha, note, by, at: new Date().toISOString() }),
    );
    await analyze('continual', 'nightly');
    const styles = new ReviewStyleRepository(platform.database.db);
    const style = await until(
      () => styles.latest(NOTES_REPO).then((s) => (s?.version === 2 ? s : undefined)),
      'a continual review style',
    );
    expect(style).toMatchObject({ mode: 'continual' });
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

  it("runs a fix when a check fails on the agent's pull request (CI watch)", async () => {
    // The agent's pushes started the watch; the repository's CI auto-fix lets it start a run.
    const call = await adminApi();
    await call('PUT', 'repositories/acme/widgets', {
      agent: true,
      autoReview: true,
      ciAutofix: true,
    });
    const branch = threadBranch(threadId);
    const number = github.state.pulls.get(NOTES_REPO)?.find((p) => p.head === branch)?.number ?? 0;
    const head = hostGit(bare, 'rev-parse', branch);
    const check = await postGithubWebhook(
      platform.hosts.ingress.url,
      SECRET,
      'check_run',
      checkRun({ number, url: `https://github.com/${NOTES_REPO}/pull/${number}` }, head, 'failure'),
    );
    expect(await check.json()).toMatchObject({ reason: 'recorded' });
    const run = await nextRun(threadId, 'the fix run');
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(hostGit(bare, 'show', `${branch}:NOTE-3.md`)).toBe('note');
  }, 60_000);

  it('wakes the thread when a wakeup its run scheduled comes due', async () => {
    // What schedule_thread_wakeup asks dispatch, on the thread's subject, as the runner does.
    const answer = await platform.bus.request(
      ScheduleThreadWakeup.subjectFor(threadId),
      {
        threadId,
        runId: [...seen].at(-1),
        delayMinutes: 1,
        prompt: 'Check on the notes.',
        idempotencyKey: randomUUID(),
      },
      { timeoutMs: 30_000 },
    );
    expect(answer).toMatchObject({ scheduled: true });
    const sweeps = platform.hosts.dispatch.app.get(DispatchSweepService);
    offsetMs = 3 * 60_000; // past the due minute (rounded up)
    try {
      await sweeps.sweep();
      const run = await nextRun(threadId, 'the woken run');
      expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    } finally {
      offsetMs = 0;
    }
    expect(hostGit(bare, 'show', `${threadBranch(threadId)}:NOTE-4.md`)).toBe('note');
  }, 60_000);

  it("takes an admin's follow-up and stop from the dashboard", async () => {
    const call = await adminApi();
    await call('POST', `threads/${threadId}/actions`, { text: 'one more note' }, 202);
    const run = await nextRun(threadId, 'the follow-up run from the dashboard');
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(hostGit(bare, 'show', `${threadBranch(threadId)}:NOTE-5.md`)).toBe('note');
    await call('POST', `threads/${threadId}/stop`, {}, 202);
  }, 60_000);

  it("recreates the thread's sandbox from the dashboard", async () => {
    const call = await adminApi();
    const handle = await call('POST', `threads/${threadId}/sandbox/recreate`, {});
    expect(handle).toMatchObject({ threadId });
  }, 60_000);

  it("replays the thread's latest run from the dashboard", async () => {
    // The runner reads the run's recorded events and replays its calls in a sandbox of its own.
    const call = await adminApi();
    const { replayId } = await call('POST', `threads/${threadId}/replays`, {}, 202);
    const replay = await until(async () => {
      const view = await call('GET', `threads/${threadId}/replays/${String(replayId)}`);
      return view['status'] === 'completed' || view['status'] === 'failed' ? view : undefined;
    }, 'the replay');
    expect(replay).toMatchObject({ status: 'completed' });
  }, 60_000);

  it("pauses a Slack mention's run at its person's budget and goes on when they grant more", async () => {
    const call = await adminApi();
    await call('PUT', 'budgets/person', { subject: `slack:${SLACK.person}`, budgetUsd: 0.015 });
    const text = `<@${SLACK.bot}> add a note`;
    const ts = slack.seed(SLACK.channel, text, SLACK.person);
    const thread = slackThreadId({ team: SLACK.team, channel: SLACK.channel, threadTs: ts });
    const mention = { type: 'app_mention', channel: SLACK.channel, user: SLACK.person, text, ts };
    expect(await postSlackEvent(platform.hosts.ingress.url, SLACK, mention)).toMatchObject({
      accepted: true,
      threadId: thread,
    });
    const paused = await nextRun(thread, 'the run of the Slack mention');
    expect(paused).toMatchObject({ status: 'interrupted', exitStatus: 'exit_budget_paused' });
    expect(JSON.stringify(await call('GET', 'budgets/pauses'))).toContain(paused.id);
    const notice = await until(
      async () => slack.messages.find((m) => m.thread_ts === ts && m.user === SLACK.bot),
      "the pause's message in the Slack thread",
    );
    expect(notice.text).toContain('reply here with how much more I may spend');

    // The person grants more in the thread, as the pause's message asked; the run goes on.
    const grant = 'continue with $5 more';
    const reply = slack.seed(SLACK.channel, grant, SLACK.person, ts);
    const message = { ...mention, type: 'message', text: grant, ts: reply, thread_ts: ts };
    await postSlackEvent(platform.hosts.ingress.url, SLACK, message);
    const continued = await nextRun(thread, 'the continued run');
    expect(continued).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    expect(JSON.stringify(await call('GET', 'budgets/pauses'))).not.toContain(paused.id);
    // Both messages were seen (👀 on each, from dispatch's receipt).
    for (const sent of [ts, reply])
      expect(slack.messages.find((m) => m.ts === sent)?.reactions).toEqual([
        { name: 'eyes', users: [SLACK.bot] },
      ]);
  }, 90_000);

  it('runs a Linear comment naming the repository, for a person linked to a GitHub login', async () => {
    // The repository a person names is theirs to use once their GitHub login sees it.
    github.collaborators.add(NOTES_REPO, LINEAR.login);
    const call = await adminApi();
    await call('PUT', 'identities', { githubLogin: LINEAR.login, linearUserId: LINEAR.user });
    const issue = linear.addIssue({
      title: 'Notes',
      description: 'We need notes.',
      teamId: 'team-eng',
      priority: 0,
      state: 'Todo',
    });
    const body = `@caravel add a note repo:${NOTES_REPO}`;
    linear.addComment(issue.id, body, { name: 'Ada', email: 'ada@acme.test' });
    const comment = linear.comments.at(-1)?.id ?? '';
    const answer = await postLinearComment(platform.hosts.ingress.url, LINEAR.secret, {
      id: comment,
      issue: { id: issue.id, identifier: issue.identifier, title: issue.title },
      body,
      user: { id: LINEAR.user, name: 'Ada' },
    });
    const thread = linearThreadId(issue.id);
    expect(answer).toMatchObject({ accepted: true, threadId: thread });
    const run = await nextRun(thread, 'the run of the Linear comment');
    expect(run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
    // Seen at once (👀 on the comment, from dispatch's receipt).
    expect(linear.reactions).toContainEqual(expect.objectContaining({ commentId: comment }));
  }, 60_000);

  it('runs the nightly review set an admin scheduled, the scheduler on its own role', async () => {
    const call = await adminApi();
    const source = await reviewSet(dir, bare);
    const schedule = await call(
      'POST',
      'evals/schedules',
      {
        name: 'roles-nightly',
        kind: 'review',
        source,
        config: 'current',
        model: reviewerModel,
        hour: 0,
      },
      201,
    );
    const id = String(schedule['id']);
    // Registered two days ago, as a scheduler that was down since would find it: a night is due.
    await platform.database.db
      .updateTable('eval_schedules')
      .set({ created_at: new Date(Date.now() - 2 * 86_400_000) })
      .where('id', '=', id)
      .execute();
    const night = await runCaravel(['eval', 'scheduler', '--once'], {
      NATS_URL: testEnvironment.TEST_NATS_URL,
      DATABASE_URL: platform.urlAs('caravel_evals'),
      DATABASE_MIGRATE: 'false',
      BUS_NAMESPACE: platform.namespace,
      EVAL_SCHEDULE_DIR: join(dir, 'evals'),
      PATH: '/usr/local/bin:/usr/bin:/bin', // where bubblewrap is looked for
      LOG_LEVEL: 'warn',
    });
    // The set's one case names a head the repository lacks: the night fails, kept on the schedule.
    expect(night).toMatchObject({ code: 1 });
    expect(night.output).toContain('failed roles-nightly');
    // Bubblewrap is checked first; past it, the night recorded its run and read its cases.
    const recorded = bwrapAvailable();
    const history = JSON.stringify(await call('GET', `evals/schedules/${id}/history`));
    expect(history).toContain(recorded ? 'no-such-head' : 'bubblewrap');
    const [run] = (await call('GET', 'evals/runs?suite=roles-set')) as unknown as { id: string }[];
    if (recorded) expect((await call('GET', `evals/runs/${run?.id}`))['id']).toBe(run?.id);
    await call(
      'POST',
      'evals/proposals',
      { suite: 'roles-set', config: 'terse', model: reviewerModel },
      201,
    );
    await call('GET', 'evals/proposals');
  }, 120_000);

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
