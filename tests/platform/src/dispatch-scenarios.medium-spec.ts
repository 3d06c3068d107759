import { RunFinishedV1 } from '@caravel/contracts';
import { RunRepository, type RunRow } from '@caravel/db';
import { FakeSlack, startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import {
  scenarioOutcome,
  scriptedModel,
  sendFollowUp,
  startScenarioFrom,
  submit,
  type StartedScenario,
} from './harness/scenario-run.js';

// Dispatch's acceptance on both pairs: one failure reply per failed run in its Slack thread, none
// for an interrupted run, and a platform limited to one active run admitting queued threads one
// at a time, each told its position once.
const BOT_TOKEN = 'xoxb-dispatch-scenarios';
const CHANNEL = 'C-dispatch';
const FAILURE = /wasn't able to finish this task/;
const QUEUED = /your request is queued \(position (\d+)\)/;
const MODEL = 'openai-compatible:dispatch-model';
// A pair's first run also prepares its sandbox; a loaded machine needs more than the default.
const SCENARIO_TIMEOUT_MS = 180_000;

let fake: FakeLlmServer;
let slack: FakeSlack;
let scripts: string;

beforeAll(async () => {
  fake = await startFakeOpenAi();
  slack = new FakeSlack().addToken(BOT_TOKEN).addChannel(CHANNEL);
  await slack.listen();
  scripts = await mkdtemp(join(tmpdir(), 'caravel-dispatch-scripts-'));
});

afterAll(async () => {
  await fake.close();
  await slack.close();
  await rm(scripts, { recursive: true, force: true });
});

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, what: string) {
  for (let i = 0; i < 600; i += 1) {
    const value = await probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A Slack thread a person started: where the scenario's trigger came from. */
function slackThread(author: string, owner = 'local') {
  const threadTs = slack.seed(CHANNEL, `<@UBOT> task from ${author}`, author);
  return {
    threadTs,
    origin: { source: 'slack' as const, replyTo: { channel: CHANNEL, threadTs }, author, owner },
  };
}

/** The Slack API calls made about a thread (reads and posts). */
function callsAbout(threadTs: string): number {
  return slack.calls.filter((call) =>
    [call.body?.['ts'], call.body?.['thread_ts']].includes(threadTs),
  ).length;
}

/** What Caravel posted in a Slack thread. */
function botPosts(threadTs: string): string[] {
  return slack.messages
    .filter((m) => m.thread_ts === threadTs && m.ts !== threadTs && m.bot_id)
    .map((m) => m.text);
}

async function runsOf(pair: PlatformPair, threadId: string): Promise<RunRow[]> {
  return new RunRepository(pair.database.db).listByThread(threadId);
}

await describeEachPair('dispatch, end to end', (kind) => {
  let pair: PlatformPair;

  beforeAll(async () => {
    pair = await startPair(kind, {
      OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_URL: slack.apiUrl,
      DISPATCH_MAX_ACTIVE_RUNS: '1',
    });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

  it(
    'a failed run gets exactly one failure reply in its Slack thread, even when its end is redelivered',
    async () => {
      const failure = { error: { status: 500, message: 'upstream broke' } };
      fake.enqueue(failure, failure, failure, failure);
      const { threadTs, origin } = slackThread('U-failing');
      const started = await startScenarioFrom(
        pair,
        { prompt: 'anything', options: { model: MODEL } },
        origin,
      );

      const out = await scenarioOutcome(pair, started);
      expect(out.run).toMatchObject({ status: 'failed', exitStatus: 'exit_api' });
      const posts = await until(() => {
        const seen = botPosts(threadTs);
        return seen.length > 0 ? seen : undefined;
      }, 'the failure reply');
      expect(posts).toHaveLength(1);
      expect(posts[0]).toMatch(FAILURE);
      expect(posts[0]).toContain('exit_api');

      // Dispatch handles the same ending again (as after a lost ack): a fresh envelope, same data.
      const callsBefore = callsAbout(threadTs);
      await pair.bus.publish(
        RunFinishedV1,
        RunFinishedV1.create(
          {
            threadId: started.threadId,
            runId: started.runId,
            outcome: 'failed',
            exitStatus: 'exit_api',
            summary: out.run.summary ?? '',
          },
          { source: 'scenario' },
        ),
      );
      const firstEnd = out.run.finishedAt?.getTime() ?? 0;
      await until(async () => {
        const run = await new RunRepository(pair.database.db).get(started.runId);
        return (run?.finishedAt?.getTime() ?? 0) > firstEnd ? run : undefined;
      }, 'dispatch to handle the redelivered ending');
      // The reply is the last thing the ending does; give it the moment it takes after the mark.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(botPosts(threadTs)).toEqual(posts);
      // Not even a look at the thread: the recorded notice answers before the channel is asked.
      expect(callsAbout(threadTs)).toBe(callsBefore);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'an interrupted run gets no failure reply, and the resumed run completes',
    async () => {
      const before = fake.requests.length;
      fake.enqueue(
        { toolCalls: [{ name: 'execute', args: { command: 'echo one > one.txt' } }] },
        { text: 'thinking for a long time', delayMs: 60_000 },
        { toolCalls: [{ name: 'submit', args: {} }] },
      );
      const { threadTs, origin } = slackThread('U-interrupting');
      const started = await startScenarioFrom(
        pair,
        { prompt: 'write one.txt', options: { model: MODEL } },
        origin,
      );
      await until(
        () => (fake.requests.length >= before + 2 ? true : undefined),
        'the second (delayed) model call',
      );
      await sendFollowUp(pair, started.threadId, 'stop and submit', 'slack');

      const interrupted = await scenarioOutcome(pair, started);
      expect(interrupted.run).toMatchObject({
        status: 'interrupted',
        exitStatus: 'exit_interrupted',
      });
      const resumed = await until(async () => {
        const runs = await runsOf(pair, started.threadId);
        return runs.find((run) => run.id !== started.runId && run.status !== 'merged');
      }, 'the resumed run');
      const next = await scenarioOutcome(pair, started, resumed.id);
      expect(next.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
      expect(botPosts(threadTs).filter((text) => FAILURE.test(text))).toEqual([]);
    },
    SCENARIO_TIMEOUT_MS,
  );

  it(
    'with one slot, three threads of different repositories and users all run, one at a time',
    async () => {
      const model = await scriptedModel(scripts, `queued-${kind}`, [submit()]);
      // The first thread holds the only slot in a slow model call while the others arrive.
      fake.enqueue({ toolCalls: [{ name: 'submit', args: {} }], delayMs: 8000 });
      const before = fake.requests.length;
      const first = slackThread('U-first', 'acme-one');
      const holder = await startScenarioFrom(
        pair,
        { prompt: 'first', options: { model: MODEL } },
        first.origin,
      );
      await until(
        () => (fake.requests.length > before ? true : undefined),
        'the first run to call its model',
      );

      const waiting: { threadTs: string; started: StartedScenario }[] = [];
      for (const [author, owner] of [
        ['U-second', 'acme-two'],
        ['U-third', 'acme-three'],
      ] as const) {
        const thread = slackThread(author, owner);
        const started = await startScenarioFrom(
          pair,
          { prompt: author, options: { model } },
          thread.origin,
        );
        waiting.push({ threadTs: thread.threadTs, started });
        await until(
          () => (botPosts(thread.threadTs).some((text) => QUEUED.test(text)) ? true : undefined),
          `${author} to be told its position`,
        );
      }

      const outcomes = [
        await scenarioOutcome(pair, holder),
        ...(await Promise.all(waiting.map((w) => scenarioOutcome(pair, w.started)))),
      ];
      expect(outcomes.map((o) => o.run.status)).toEqual(['completed', 'completed', 'completed']);
      const byStart = outcomes
        .map((o) => o.run)
        .sort((a, b) => time(a.startedAt) - time(b.startedAt));
      for (let i = 1; i < byStart.length; i += 1) {
        expect(time(byStart[i]?.startedAt)).toBeGreaterThanOrEqual(
          time(byStart[i - 1]?.finishedAt),
        );
      }
      expect(byStart[0]?.id).toBe(holder.runId);
      expect(botPosts(first.threadTs).filter((text) => QUEUED.test(text))).toEqual([]);
      const positions = waiting.map((w) =>
        botPosts(w.threadTs)
          .map((text) => QUEUED.exec(text)?.[1])
          .filter((position) => position !== undefined),
      );
      expect(positions).toEqual([['1'], ['2']]);
    },
    SCENARIO_TIMEOUT_MS,
  );
});

function time(at: Date | null | undefined): number {
  return at?.getTime() ?? Number.NaN;
}
