import { StopThreadV1, WAKEUP_BUDGET } from '@caravel/contracts';
import { RunRepository, ThreadStopRepository, ThreadWakeupRepository } from '@caravel/db';
import { DispatchSweepService } from '@caravel/dispatch';
import { startFakeOpenAi, type FakeLlmReply, type FakeLlmServer } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import { scenarioOutcome, startScenario, until } from './harness/scenario-run.js';

// schedule_thread_wakeup on both pairs: a run schedules wakeups through dispatch until the budget
// (10 per message from a person) refuses the 11th; once dispatch's injected clock passes the
// first one's time, the sweep wakes the thread and a new run starts from the wakeup's note; a stop
// then withdraws the wakeups still waiting, so none fires.
const MODEL = 'openai-compatible:wakeup-model';
const NOTE = 'WAKEUP-NOTE: check whether CI went green, then carry on.';
// A pair's first run also prepares its sandbox; a loaded machine needs more than the default.
const SCENARIO_TIMEOUT_MS = 480_000;

let fake: FakeLlmServer;

beforeAll(async () => {
  fake = await startFakeOpenAi();
});

afterAll(async () => {
  await fake.close();
});

const wakeup = (delayMinutes: number, prompt: string): FakeLlmReply => ({
  toolCalls: [{ name: 'schedule_thread_wakeup', args: { delay_minutes: delayMinutes, prompt } }],
});
const submit: FakeLlmReply = { toolCalls: [{ name: 'submit', args: {} }] };

/** The text of every message a recorded chat-completions request sent. */
function promptText(body: Record<string, unknown> | null): string {
  const messages = (body?.['messages'] ?? []) as { content?: unknown }[];
  return messages.map((message) => JSON.stringify(message.content ?? '')).join('\n');
}

await describeEachPair('schedule_thread_wakeup, end to end', (kind) => {
  let pair: PlatformPair;
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };

  beforeAll(async () => {
    pair = await startPair(kind, { OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl }, { clock });
  }, 60_000);

  afterAll(async () => {
    await pair?.close();
  });

  it(
    'schedules within the budget, refuses the 11th, and wakes the thread with the note when due',
    async () => {
      fake.enqueue(
        wakeup(1, NOTE),
        ...Array.from({ length: WAKEUP_BUDGET - 1 }, (_, n) => wakeup(1440, `later ${n + 2}`)),
        wakeup(1440, 'one too many'),
        submit,
      );
      const started = await startScenario(pair, {
        prompt: 'wait for CI, then continue',
        options: { model: MODEL },
      });
      const first = await scenarioOutcome(pair, started, started.runId, SCENARIO_TIMEOUT_MS / 2);
      expect(first.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });

      const observations = first.traj.trajectory
        .filter((step) => step.action.includes('schedule_thread_wakeup'))
        .map((step) => step.observation);
      expect(observations).toHaveLength(WAKEUP_BUDGET + 1);
      observations.slice(0, WAKEUP_BUDGET).forEach((observation, n) => {
        expect(observation).toMatch(
          new RegExp(`^Wakeup scheduled for .+; ${WAKEUP_BUDGET - 1 - n} left until a person`),
        );
      });
      expect(observations[WAKEUP_BUDGET]).toBe(
        'Error (FORBIDDEN): No wakeup scheduled: This thread already has 10 wakeups since the ' +
          'last message from a person; no more until someone writes.',
      );
      const wakeups = new ThreadWakeupRepository(pair.database.db);
      const stored = await wakeups.due(new Date(Date.now() + 2 * 86_400_000));
      expect(stored.filter((w) => w.threadId === started.threadId)).toHaveLength(WAKEUP_BUDGET);

      // Not due yet on dispatch's clock: a sweep wakes nobody.
      const sweeps = pair.host.app.get(DispatchSweepService);
      const runs = new RunRepository(pair.database.db);
      await sweeps.sweep();
      expect(await runs.listByThread(started.threadId)).toHaveLength(1);

      fake.enqueue(submit);
      const before = fake.requests.length;
      offsetMs = 3 * 60_000;
      const woken = await until(async () => {
        await sweeps.sweep();
        const all = await runs.listByThread(started.threadId);
        return all.find((run) => run.id !== started.runId && run.status !== 'merged');
      }, 'the woken run');
      const second = await scenarioOutcome(pair, started, woken.id, SCENARIO_TIMEOUT_MS / 4);
      expect(second.run).toMatchObject({ status: 'completed', exitStatus: 'submitted' });
      const wokenPrompt = promptText(fake.requests[before]?.body ?? null);
      expect(wokenPrompt).toContain(NOTE);
      // Only the wakeup that was due fired; the nine set a day out still wait.
      expect(await runs.listByThread(started.threadId)).toHaveLength(2);
      const pending = await wakeups.due(new Date(Date.now() + 2 * 86_400_000));
      expect(pending.filter((w) => w.threadId === started.threadId)).toHaveLength(
        WAKEUP_BUDGET - 1,
      );

      // A person stops the thread: the nine still waiting are withdrawn, not fired, when due.
      await pair.bus.publish(
        StopThreadV1,
        StopThreadV1.create(
          {
            threadId: started.threadId,
            source: 'synthetic',
            requestedBy: { externalId: 'alice' },
            requestId: randomUUID(),
          },
          { source: 'scenario' },
        ),
      );
      const stops = new ThreadStopRepository(pair.database.db);
      await until(
        async () => (await stops.since(started.threadId, new Date(0))) ?? undefined,
        'the stop recorded',
      );
      offsetMs = 2 * 86_400_000;
      await sweeps.sweep();
      const settled = await pair.database.db
        .selectFrom('thread_wakeups')
        .select(['fired_at', 'withdrawn_at'])
        .where('thread_id', '=', started.threadId)
        .execute();
      expect(settled.filter((w) => w.withdrawn_at !== null)).toHaveLength(WAKEUP_BUDGET - 1);
      expect(settled.filter((w) => w.fired_at !== null)).toHaveLength(1);
      expect(await runs.listByThread(started.threadId)).toHaveLength(2);
      expect(fake.requests.length).toBe(before + 1);
    },
    SCENARIO_TIMEOUT_MS,
  );
});
