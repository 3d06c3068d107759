import { RunNoticeRepository, SandboxRepository, ThreadRepository } from '@caravel/db';
import { FakeSlack } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachPair } from './harness/platform-pairs.js';
import { scenarioOutcome, sendFollowUp, startScenarioFrom, until } from './harness/scenario-run.js';
import { fakeOpenAiForFile, pairForSuite, SLOW_RUN_TIMEOUT_MS } from './harness/suite-fixtures.js';

// Issue 7's acceptance on both pairs: a thread whose sandbox was deleted under it (its directory
// removed behind the broker's back) gets one clear message in its source channel, its next run
// ends exit_environment_error without a model call, and no new sandbox is bound in its place,
// until the person asks for one (the dashboard's recreate): then the thread carries on.
const BOT_TOKEN = 'xoxb-sandbox-loss';
const CHANNEL = 'C-sandbox-loss';
const MODEL = { model: 'openai-compatible:sandbox-loss-model' };
const DASHBOARD_TOKEN = 'sandbox-loss-dashboard-token';

const fake = fakeOpenAiForFile();
let slack: FakeSlack;
let sandboxRoot: string;

beforeAll(async () => {
  slack = new FakeSlack().addToken(BOT_TOKEN).addChannel(CHANNEL);
  await slack.listen();
  sandboxRoot = await mkdtemp(join(tmpdir(), 'caravel-sandbox-loss-'));
  await chmod(sandboxRoot, 0o755); // the sandbox user must reach the sandboxes inside
});

afterAll(async () => {
  await slack.close();
  await rm(sandboxRoot, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, args }] });

/** What Caravel posted in a Slack thread. */
function postsIn(threadTs: string): string[] {
  return slack.messages
    .filter((m) => m.thread_ts === threadTs && m.ts !== threadTs && m.bot_id)
    .map((m) => m.text);
}

await describeEachPair('a thread whose sandbox was deleted under it', (kind) => {
  const root = () => join(sandboxRoot, kind);
  /** The sandboxes under the root: the broker's own entries (the generated /etc) start with a dot. */
  const sandboxDirs = async () => (await readdir(root())).filter((name) => !name.startsWith('.'));
  const pair = pairForSuite(kind, () => ({
    OPENAI_COMPATIBLE_BASE_URL: fake().baseUrl,
    SANDBOX_ROOT: root(),
    SLACK_BOT_TOKEN: BOT_TOKEN,
    SLACK_API_URL: slack.apiUrl,
    DASHBOARD_TOKEN,
  }));

  it(
    'tells the source channel once, ends exit_environment_error, binds no new sandbox until asked, then carries on',
    async () => {
      const threadTs = slack.seed(CHANNEL, '<@UBOT> keep notes', 'U-owner');
      const origin = {
        source: 'slack' as const,
        replyTo: { channel: CHANNEL, threadTs },
        author: 'U-owner',
      };
      fake().enqueue(call('execute', { command: 'echo unpushed > notes.txt' }), call('submit', {}));
      const started = await startScenarioFrom(
        pair(),
        { prompt: 'keep notes', options: MODEL },
        origin,
      );
      const first = await scenarioOutcome(pair(), started, started.runId, SLOW_RUN_TIMEOUT_MS);
      expect(first.run).toMatchObject({ exitStatus: 'submitted' });
      const sandboxes = new SandboxRepository(pair().database.db);
      const bound = await sandboxes.getByThread(started.threadId);
      expect(bound).not.toBeNull();
      const sandboxId = bound?.externalId ?? '';
      expect(await readdir(root())).toContain(sandboxId);

      // Deleted behind the broker's back, not through it.
      await rm(join(root(), sandboxId), { recursive: true, force: true });
      const postsBefore = postsIn(threadTs).length;
      const modelCallsBefore = fake().requests.length;
      const runId = await sendFollowUp(pair(), started.threadId, 'carry on', 'slack', 'U-owner');
      const second = await scenarioOutcome(pair(), started, runId, SLOW_RUN_TIMEOUT_MS);

      expect(second.run).toMatchObject({ status: 'failed', exitStatus: 'exit_environment_error' });
      await until(async () => {
        const thread = await new ThreadRepository(pair().database.db).get(started.threadId);
        return thread?.status === 'idle' ? thread : undefined;
      }, 'dispatch to free the thread');
      // The failure reply is the last thing dispatch does with an ending: give it its moment.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const posts = postsIn(threadTs).slice(postsBefore);
      expect(posts).toHaveLength(1);
      expect(posts[0]).toMatch(
        /^I stopped: this thread's sandbox .*cannot be reached; it was deleted or is unavailable\./,
      );
      expect(await new RunNoticeRepository(pair().database.db).sent(runId, 'failure')).toBe(true);
      expect(fake().requests.length).toBe(modelCallsBefore);
      expect((await sandboxes.getByThread(started.threadId))?.externalId).toBe(sandboxId);
      expect(await sandboxes.listRetired(started.threadId)).toEqual([]);
      expect(await sandboxDirs()).toEqual([]);

      // The person asks for a fresh sandbox (as the notice says): the lost one is kept on
      // record, retired, and the next run works in the new one.
      const recreate = () =>
        fetch(`${pair().host.url}/api/threads/${started.threadId}/sandbox/recreate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` },
        });
      const fresh = await recreate();
      expect(fresh.status).toBe(200);
      const handle = (await fresh.json()) as { sandboxId: string; outcome: string };
      expect(handle.outcome).toBe('replaced');
      expect((await sandboxes.getByThread(started.threadId))?.externalId).toBe(handle.sandboxId);
      expect(await sandboxDirs()).toEqual([handle.sandboxId]);
      expect((await sandboxes.listRetired(started.threadId)).map((s) => s.externalId)).toEqual([
        sandboxId,
      ]);
      fake().enqueue(call('execute', { command: 'echo again > notes.txt' }), call('submit', {}));
      const thirdRun = await sendFollowUp(pair(), started.threadId, 'go on', 'slack', 'U-owner');
      const third = await scenarioOutcome(pair(), started, thirdRun, SLOW_RUN_TIMEOUT_MS);
      expect(third.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
      expect(third.traj.info.submission).toContain('notes.txt');
    },
    2 * SLOW_RUN_TIMEOUT_MS,
  );
});
