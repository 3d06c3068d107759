import { randomUUID } from 'node:crypto';
import { ScheduleThreadWakeup, WAKEUP_BUDGET } from '../index.js';

describe('ScheduleThreadWakeup', () => {
  const base = { threadId: randomUUID(), runId: randomUUID(), idempotencyKey: 'call-1' };

  it('is served on dispatch.<threadId>.wakeup', () => {
    expect(ScheduleThreadWakeup.pattern).toBe('dispatch.*.wakeup');
    expect(ScheduleThreadWakeup.subjectFor(base.threadId)).toBe(`dispatch.${base.threadId}.wakeup`);
  });

  it('takes a delay of one minute to one day', () => {
    expect(ScheduleThreadWakeup.parseRequest({ ...base, delayMinutes: 1 }).delayMinutes).toBe(1);
    expect(() => ScheduleThreadWakeup.parseRequest({ ...base, delayMinutes: 0 })).toThrow(
      'delayMinutes',
    );
    expect(() => ScheduleThreadWakeup.parseRequest({ ...base, delayMinutes: 1441 })).toThrow(
      'delayMinutes',
    );
  });

  it('answers either a scheduled wakeup or a spent budget', () => {
    expect(
      ScheduleThreadWakeup.parseResponse({
        scheduled: false,
        reason: 'budget_exhausted',
        message: `at most ${WAKEUP_BUDGET}`,
        remaining: 0,
      }).scheduled,
    ).toBe(false);
    expect(() =>
      ScheduleThreadWakeup.parseResponse({ scheduled: true, wakeupId: 'x', remaining: 1 }),
    ).toThrow('malformed');
  });
});
