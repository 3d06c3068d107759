import { StartRunV1 } from '@caravel/contracts';
import { strictMock } from '@caravel/testing/doubles';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { Bus, Subscription } from '../bus.port.js';
import { CaravelTransport, SLOW_DRAIN_WARNING_MS } from './caravel-transport.strategy.js';

/** A consumer whose drain ends only when `finish` is called. */
function heldSubscription(): { subscription: Subscription; finish: () => void } {
  let finish = () => undefined as void;
  const drained = new Promise<void>((resolve) => {
    finish = resolve;
  });
  return { subscription: { drain: () => drained }, finish };
}

describe('CaravelTransport close', () => {
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('names a consumer that has not drained after the warning delay, and only that one', async () => {
    const held = heldSubscription();
    const quick: Subscription = { drain: () => Promise.resolve() };
    const subscriptions = [held.subscription, quick];
    const bus = strictMock<Bus>(
      { consume: () => Promise.resolve(subscriptions.shift() ?? quick) },
      'bus',
    );
    const transport = new CaravelTransport(bus, [StartRunV1]);
    // Nest keeps a handler's extras on the function: each handler is its own.
    const dispatch = () => Promise.resolve();
    const dashboard = () => Promise.resolve();
    transport.addHandler(StartRunV1.pattern, dispatch, true, { durable: 'dispatch-run-start' });
    transport.addHandler(StartRunV1.pattern, dashboard, true, { durable: 'dashboard-run-start' });
    await new Promise<void>((resolve, reject) => {
      transport.listen((error) =>
        error ? reject(new Error('the transport did not start')) : resolve(),
      );
    });
    const warnings: string[] = [];
    jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });

    jest.useFakeTimers();
    const closed = transport.close();
    await jest.advanceTimersByTimeAsync(SLOW_DRAIN_WARNING_MS - 1);
    expect(warnings).toEqual([]);
    await jest.advanceTimersByTimeAsync(1);
    expect(warnings).toEqual([
      'still draining consumer dispatch-run-start: a handler has not ended',
    ]);
    held.finish();
    await closed;
  });
});
