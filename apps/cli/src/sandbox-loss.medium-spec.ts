import { RunNoticeRepository, SandboxRepository, ThreadRepository } from '@caravel/db';
import { FakeSlack, startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachPair, startPair, type PlatformPair } from './testing/platform-pairs.js';
import { scenarioOutcome, sendFollowUp, startScenarioFrom } from './testing/scenario-run.js';

// Issue 7's acceptance on both pairs: a thread whose sandbox was deleted under it (its directory
// removed behind the broker's back) gets one clear message in its source channel, its next run
// ends exit_environment_error without a model call, and no new sandbox is bound in its place.
const BOT_TOKEN = 'xoxb-sandbox-loss';
const CHANNEL = 'C-sandbox-loss';
const MODEL = { model: 'openai-compatible:sandbox-loss-model' };
const SCENARIO_TIMEOUT_MS = 180_000;

let fake: FakeLlmServer;
let slack: FakeSlack;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  slack = new FakeSlack().addToken(BOT_TOKEN).addChannel(CHANNEL);
  await slack.listen();
});

afterAll(async () => {
  await fake.close();
  await slack.close();
});

const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, args }] });

/** What Caravel posted in a Slack thread. */
function postsIn(threadTs: string): string[] {
  return slack.messages
    .filter((m) => m.thread_ts === threadTs && m.ts !== threadTs && m.bot_id)
    .map((m) => m.text);
}

async function until<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 600; i += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

await describeEachPair('a thread whose sandbox was deleted under it', (kind) => {
  let pair: PlatformPair;
  let sandboxRoot: string;

  beforeAll(async () => {
    sandboxRoot = await mkdtemp(join(tmpdir(), 'caravel-sandbox-loss-'));
    await chmod(sandboxRoot, 0o755);
    pair = await startPair(kind, {
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
      SANDBOX_PROVIDER: 'bwrap',
      SANDBOX_ROOT: sandboxRoot,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_URL: slack.apiUrl,
    });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
    await rm(sandboxRoot, { recursive: true, force: true });
  });

  it(
    'tells the source channel once, ends exit_environment_error and binds no new sandbox',
    async () => {
      const threadTs = slack.seed(CHANNEL, '<@UBOT> keep notes', 'U-owner');
      const origin = {
        source: 'slack' as const,
        replyTo: { channel: CHANNEL, threadTs },
        author: 'U-owner',
      };
      fake.enqueue(call('execute', { command: 'echo unpushed > notes.txt' }), call('submit', {}));
      const started = await startScenarioFrom(
        pair,
        { prompt: 'keep notes', options: MODEL },
        origin,
      );
      const first = await scenarioOutcome(pair, started, started.runId, SCENARIO_TIMEOUT_MS);
      expect(first.run.exitStatus).toBe('submitted');
      const sandboxes = new SandboxRepository(pair.database.db);
      const bound = await sandboxes.getByThread(started.threadId);
      expect(bound).not.toBeNull();
      const sandboxId = bound?.externalId ?? '';
      expect(await readdir(sandboxRoot)).toContain(sandboxId);

      // Deleted behind the broker's back, not through it.
      await rm(join(sandboxRoot, sandboxId), { recursive: true, force: true });
      const postsBefore = postsIn(threadTs).length;
      const modelCallsBefore = fake.requests.length;
      const runId = await sendFollowUp(pair, started.threadId, 'carry on', 'slack', 'U-owner');
      const second = await scenarioOutcome(pair, started, runId, SCENARIO_TIMEOUT_MS);

      expect(second.run).toMatchObject({ status: 'failed', exitStatus: 'exit_environment_error' });
      await until(async () => {
        const thread = await new ThreadRepository(pair.database.db).get(started.threadId);
        return thread?.status === 'idle' ? thread : undefined;
      }, 'dispatch to free the thread');
      // The failure reply is the last thing dispatch does with an ending: give it its moment.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const posts = postsIn(threadTs).slice(postsBefore);
      expect(posts).toHaveLength(1);
      expect(posts[0]).toMatch(
        /^I stopped: this thread's sandbox .*cannot be reached; it was deleted or is unavailable\./,
      );
      expect(await new RunNoticeRepository(pair.database.db).sent(runId, 'failure')).toBe(true);
      expect(fake.requests.length).toBe(modelCallsBefore);
      expect((await sandboxes.getByThread(started.threadId))?.externalId).toBe(sandboxId);
      expect(await sandboxes.listRetired(started.threadId)).toEqual([]);
      expect(await readdir(sandboxRoot)).not.toContain(sandboxId);
      expect(await readdir(sandboxRoot)).toHaveLength(0);
    },
    2 * SCENARIO_TIMEOUT_MS,
  );
});
