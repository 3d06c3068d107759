import { describe, expect, it, jest } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { ExecutionTracker } from './execution-tracker.js';
import { LimitGuard, type ModelCallUsage, type WallClock } from './limit-guard.js';
import { LoopExitError } from './loop-exit.error.js';

class ManualClock implements WallClock {
  constructor(private ms = 1_000) {}
  nowMs(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

const usage = (costUsd: number): ModelCallUsage => ({
  costUsd,
  tokensSent: 100,
  tokensReceived: 10,
});
const paidCall = (costUsd: number) =>
  jest.fn(() => Promise.resolve({ value: 'answer', usage: usage(costUsd) }));

describe('LimitGuard', () => {
  it('refuses before the call when it could exceed the budget, and never invokes it', async () => {
    const guard = new LimitGuard({ maxCostUsd: 1 }, new ManualClock());
    await guard.call({ inputTokens: 10, costUsd: 0.5 }, paidCall(0.6));
    const paid = paidCall(0.5);
    const refused = guard.call({ inputTokens: 10, costUsd: 0.5 }, paid);
    await expect(refused).rejects.toBeInstanceOf(LoopExitError);
    await expect(refused).rejects.toMatchObject({ reason: 'exit_cost' });
    expect(paid).not.toHaveBeenCalled();
    expect(guard.stats().apiCalls).toBe(1);
  });

  it('allows a call that spends the budget exactly', async () => {
    const guard = new LimitGuard({ maxCostUsd: 1 }, new ManualClock());
    await guard.call({ inputTokens: 1, costUsd: 0.5 }, paidCall(0.5));
    expect(guard.beforeModelCall({ inputTokens: 1, costUsd: 0.5 })).toEqual({ ok: true });
  });

  it('refuses the call after the call limit, before calling', async () => {
    const guard = new LimitGuard({ maxModelCalls: 2, maxCostUsd: 0 }, new ManualClock());
    const first = paidCall(0);
    await guard.call({ inputTokens: 1, costUsd: 0 }, first);
    await guard.call({ inputTokens: 1, costUsd: 0 }, first);
    const third = paidCall(0);
    await expect(guard.call({ inputTokens: 1, costUsd: 0 }, third)).rejects.toMatchObject({
      reason: 'exit_cost',
    });
    expect(third).not.toHaveBeenCalled();
    expect(first).toHaveBeenCalledTimes(2);
  });

  it('refuses a prompt larger than the context window with exit_context', () => {
    const guard = new LimitGuard({ maxInputTokens: 1000 }, new ManualClock());
    expect(guard.beforeModelCall({ inputTokens: 1000, costUsd: 0 })).toEqual({ ok: true });
    expect(guard.beforeModelCall({ inputTokens: 1001, costUsd: 0 })).toMatchObject({
      ok: false,
      reason: 'exit_context',
    });
  });

  it('stops at the wall-clock limit with exit_total_execution_time', () => {
    const clock = new ManualClock();
    const guard = new LimitGuard({ maxWallTimeMs: 60_000 }, clock);
    clock.advance(59_999);
    expect(guard.beforeModelCall({ inputTokens: 1, costUsd: 0 }).ok).toBe(true);
    clock.advance(1);
    expect(guard.beforeModelCall({ inputTokens: 1, costUsd: 0 })).toMatchObject({
      ok: false,
      reason: 'exit_total_execution_time',
    });
  });

  it('accumulates usage into model stats', () => {
    const guard = new LimitGuard({}, new ManualClock());
    guard.afterModelCall({ costUsd: 0.25, tokensSent: 1200, tokensReceived: 80 });
    guard.afterModelCall({ costUsd: 0.5, tokensSent: 1300, tokensReceived: 20 });
    expect(guard.stats()).toEqual({
      instanceCost: 0.75,
      tokensSent: 2500,
      tokensReceived: 100,
      apiCalls: 2,
    });
  });

  it('refuses the next call once an underestimated call overran the budget', () => {
    const guard = new LimitGuard({ maxCostUsd: 1 }, new ManualClock());
    guard.afterModelCall(usage(1.2));
    expect(guard.beforeModelCall({ inputTokens: 1, costUsd: 0 })).toMatchObject({
      ok: false,
      reason: 'exit_cost',
    });
  });

  it('uses a $3 budget by default and treats 0 as unlimited', () => {
    expect(
      new LimitGuard({}, new ManualClock()).beforeModelCall({ inputTokens: 1, costUsd: 3.01 }).ok,
    ).toBe(false);
    const unlimited = new LimitGuard({ maxCostUsd: 0 }, new ManualClock());
    expect(unlimited.beforeModelCall({ inputTokens: 1e9, costUsd: 1e6 }).ok).toBe(true);
  });

  it('rejects negative limits and nonsense estimates', () => {
    expect(() => new LimitGuard({ maxCostUsd: -1 }, new ManualClock())).toThrow(AppError);
    const guard = new LimitGuard({}, new ManualClock());
    expect(() => guard.beforeModelCall({ inputTokens: Number.NaN, costUsd: 0 })).toThrow(AppError);
  });
});

describe('ExecutionTracker', () => {
  it('ends the run after the configured number of consecutive timeouts', () => {
    const tracker = new ExecutionTracker({ maxConsecutiveTimeouts: 3 });
    expect(tracker.recordCommand({ seconds: 30, timedOut: true }).ok).toBe(true);
    expect(tracker.recordCommand({ seconds: 30, timedOut: true }).ok).toBe(true);
    expect(tracker.recordCommand({ seconds: 30, timedOut: true })).toMatchObject({
      ok: false,
      reason: 'exit_command_timeout',
    });
  });

  it('resets the timeout streak after a command that finishes', () => {
    const tracker = new ExecutionTracker({ maxConsecutiveTimeouts: 2 });
    tracker.recordCommand({ seconds: 30, timedOut: true });
    tracker.recordCommand({ seconds: 1, timedOut: false });
    expect(tracker.recordCommand({ seconds: 30, timedOut: true }).ok).toBe(true);
  });

  it('ends the run once total execution time is over the limit', () => {
    const tracker = new ExecutionTracker({ maxTotalExecutionSeconds: 60 });
    tracker.recordCommand({ seconds: 60, timedOut: false });
    expect(tracker.beforeStep().ok).toBe(true);
    tracker.recordCommand({ seconds: 0.5, timedOut: false });
    expect(tracker.beforeStep()).toMatchObject({ ok: false, reason: 'exit_total_execution_time' });
    expect(tracker.executionSeconds()).toBe(60.5);
  });
});
