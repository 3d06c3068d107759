import { describe, expect, it } from '@jest/globals';
import type { ScheduleWakeupResponse } from '@caravel/contracts';
import { channelTools } from '../channel/channel-tools.js';
import {
  SCHEDULE_WAKEUP_TOOL_NAME,
  scheduleThreadWakeupTool,
  type WakeupRequest,
  type WakeupScheduler,
} from './schedule-wakeup.tool.js';

const WAKEUP_ID = '6f1f3a9e-4b1c-4f0e-9a0a-1d2e3f4a5b6c';

/** A scheduler that records what it was asked and answers from a script. */
function recording(
  answers: ScheduleWakeupResponse[],
): WakeupScheduler & { asked: WakeupRequest[] } {
  const asked: WakeupRequest[] = [];
  return {
    asked,
    schedule(request) {
      asked.push(request);
      const answer = answers.shift();
      if (!answer) throw new Error('unexpected schedule call');
      return Promise.resolve(answer);
    },
  };
}

const scheduled = (remaining: number): ScheduleWakeupResponse => ({
  scheduled: true,
  wakeupId: WAKEUP_ID,
  dueAt: '2026-01-02T10:05:00.000Z',
  remaining,
});

describe('schedule_thread_wakeup', () => {
  it('asks dispatch for the delay and prompt and tells the model when it fires', async () => {
    const scheduler = recording([scheduled(9)]);
    const result = await scheduleThreadWakeupTool(scheduler).invoke({
      delay_minutes: 5,
      prompt: 'Check whether CI went green on the PR.',
    });
    expect(result).toMatchObject({ ok: true, output: { scheduled: true, remaining: 9 } });
    expect(result.observation).toBe(
      `Wakeup scheduled for 2026-01-02T10:05:00.000Z (id ${WAKEUP_ID}); 9 left until a person writes again.`,
    );
    expect(scheduler.asked).toEqual([
      {
        delayMinutes: 5,
        prompt: 'Check whether CI went green on the PR.',
        idempotencyKey: expect.stringMatching(/^[0-9a-f]{16}:1$/) as unknown,
      },
    ]);
  });

  it('gives repeated identical calls distinct keys, and a fresh tool (a resumed run) the same ones', async () => {
    const first = recording([scheduled(9), scheduled(8), scheduled(7)]);
    const tool = scheduleThreadWakeupTool(first);
    await tool.invoke({ delay_minutes: 10 });
    await tool.invoke({ delay_minutes: 10 });
    await tool.invoke({ delay_minutes: 11 });
    const [a, b, c] = first.asked.map((request) => request.idempotencyKey);
    expect(new Set([a, b, c]).size).toBe(3);
    expect(b?.split(':')[0]).toBe(a?.split(':')[0]);

    const resumed = recording([scheduled(9)]);
    await scheduleThreadWakeupTool(resumed).invoke({ delay_minutes: 10 });
    expect(resumed.asked[0]?.idempotencyKey).toBe(a);
    expect(resumed.asked[0]).not.toHaveProperty('prompt');
  });

  it("keys a call on Caravel's id of it: made again by a resumed run it shares its key, another call does not", async () => {
    const first = recording([scheduled(9), scheduled(8)]);
    const tool = scheduleThreadWakeupTool(first);
    await tool.invoke({ delay_minutes: 10 }, { callId: 'call_3fa2b1c4d5e6_4_0' });
    await tool.invoke({ delay_minutes: 10 }, { callId: 'call_3fa2b1c4d5e6_7_0' });

    const resumed = recording([scheduled(9)]);
    await scheduleThreadWakeupTool(resumed).invoke(
      { delay_minutes: 10 },
      { callId: 'call_3fa2b1c4d5e6_7_0' },
    );
    expect(first.asked.map((request) => request.idempotencyKey)).toEqual([
      'call:call_3fa2b1c4d5e6_4_0',
      'call:call_3fa2b1c4d5e6_7_0',
    ]);
    expect(resumed.asked[0]?.idempotencyKey).toBe('call:call_3fa2b1c4d5e6_7_0');
  });

  it('refuses clearly once the budget is spent', async () => {
    const message =
      'This thread already has 10 wakeups since the last message from a person; no more until someone writes.';
    const tool = scheduleThreadWakeupTool(
      recording([{ scheduled: false, reason: 'budget_exhausted', message, remaining: 0 }]),
    );
    const result = await tool.invoke({ delay_minutes: 1 });
    expect(result).toMatchObject({ ok: false, error: { code: 'FORBIDDEN' } });
    expect(result.observation).toBe(`Error (FORBIDDEN): No wakeup scheduled: ${message}`);
  });

  it('checks the delay bounds before asking anyone', async () => {
    const tool = scheduleThreadWakeupTool(recording([]));
    for (const delay of [0, 1441, 2.5]) {
      const result = await tool.invoke({ delay_minutes: delay });
      expect(result).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
    }
  });

  it('is a channel tool of runs that have a thread in dispatch, and a control tool', () => {
    const tools = channelTools({ wakeups: recording([]) });
    expect(tools.map((t) => t.name)).toEqual([SCHEDULE_WAKEUP_TOOL_NAME]);
    expect(tools[0]?.effect).toBe('control');
    expect(channelTools({}).map((t) => t.name)).not.toContain(SCHEDULE_WAKEUP_TOOL_NAME);
  });
});
