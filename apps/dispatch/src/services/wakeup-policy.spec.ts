import { isHumanTrigger, WAKEUP_ACTOR, wakeupDueAt, wakeupsLeft } from './wakeup-policy.js';

describe('wakeup policy', () => {
  it('rounds the fire time up to the next whole minute', () => {
    const now = new Date('2026-11-30T23:59:30.500Z');
    expect(wakeupDueAt(now, 1).toISOString()).toBe('2026-12-01T00:01:00.000Z');
    expect(wakeupDueAt(new Date('2026-11-30T10:00:00Z'), 5).toISOString()).toBe(
      '2026-11-30T10:05:00.000Z',
    );
  });

  it('counts down from ten per human message and never below zero', () => {
    expect(wakeupsLeft(1)).toBe(9);
    expect(wakeupsLeft(10)).toBe(0);
    expect(wakeupsLeft(12)).toBe(0);
  });

  it('treats every author but the wakeup itself as a person', () => {
    expect(isHumanTrigger({ author: WAKEUP_ACTOR })).toBe(false);
    expect(isHumanTrigger({ author: { externalId: 'U123' } })).toBe(true);
  });
});
