import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { isAppError } from '@caravel/errors';
import { BrokerCallWatch } from './broker-call-watch.js';

const CALL = '0b6f7c2e-5d1a-4d55-9a3e-3f2b8f6d1c10';

/** A call that answers when told to. */
function pendingCall<T>(): { promise: Promise<T>; answer(value: T): void } {
  let answer!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (answer = resolve));
  return { promise, answer };
}

/** What the watched call settled with so far: nothing yet, a value, or an error. */
function outcomeOf<T>(watched: Promise<T>): { value?: T; error?: unknown; settled: boolean } {
  const outcome: { value?: T; error?: unknown; settled: boolean } = { settled: false };
  watched.then(
    (value) => Object.assign(outcome, { value, settled: true }),
    (error: unknown) => Object.assign(outcome, { error, settled: true }),
  );
  return outcome;
}

describe('BrokerCallWatch', () => {
  beforeEach(() => {
    jest.useFakeTimers();
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('fails a call soon after the probes of the broker running it stop', async () => {
    const watch = new BrokerCallWatch();
    const call = pendingCall<string>();
    const outcome = outcomeOf(watch.watch(CALL, call.promise));
    for (let second = 0; second < 30; second += 1) {
      watch.heard(CALL, 1_000);
      await jest.advanceTimersByTimeAsync(1_000);
    }
    expect(outcome.settled).toBe(false);
    // The broker is killed: no more probes. The last came 1 s ago; ten intervals (at least
    // 15 s) of silence, then 3 s to confirm: 18 s after it.
    await jest.advanceTimersByTimeAsync(16_000);
    expect(outcome.settled).toBe(false);
    await jest.advanceTimersByTimeAsync(1_500);
    expect(outcome.settled).toBe(true);
    expect(isAppError(outcome.error) && outcome.error.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(isAppError(outcome.error) && outcome.error.details).toMatchObject({
      reason: 'broker_gone',
    });
    expect(isAppError(outcome.error) && outcome.error.retryable).toBe(true);
    expect(watch.size).toBe(0);
    // The request's own late failure (its timeout) is swallowed, not left unhandled.
    call.answer('late');
  });

  it('keeps a call whose broker goes on probing, however long it runs, and returns its answer', async () => {
    const watch = new BrokerCallWatch();
    const call = pendingCall<string>();
    const outcome = outcomeOf(watch.watch(CALL, call.promise));
    for (let second = 0; second < 600; second += 1) {
      watch.heard(CALL, 1_000);
      await jest.advanceTimersByTimeAsync(1_000);
    }
    call.answer('done');
    await jest.advanceTimersByTimeAsync(0);
    expect(outcome).toEqual({ value: 'done', settled: true });
    expect(watch.size).toBe(0);
  });

  it('takes a probe during the confirmation as a sign of life (a blocked event loop)', async () => {
    const watch = new BrokerCallWatch();
    const call = pendingCall<string>();
    const outcome = outcomeOf(watch.watch(CALL, call.promise));
    watch.heard(CALL, 1_000);
    await jest.advanceTimersByTimeAsync(16_000);
    watch.heard(CALL, 1_000);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(outcome.settled).toBe(false);
    call.answer('done');
    await jest.advanceTimersByTimeAsync(0);
    expect(outcome.value).toBe('done');
  });

  it('never fails a call it has heard no probe for (a broker that sends no call ids)', async () => {
    const watch = new BrokerCallWatch();
    const call = pendingCall<string>();
    const outcome = outcomeOf(watch.watch(CALL, call.promise));
    await jest.advanceTimersByTimeAsync(300_000);
    expect(outcome.settled).toBe(false);
    call.answer('done');
    await jest.advanceTimersByTimeAsync(0);
    expect(outcome.value).toBe('done');
  });

  it('scales the silence with a slow probe interval and ignores probes for other calls', async () => {
    const watch = new BrokerCallWatch();
    const call = pendingCall<string>();
    const outcome = outcomeOf(watch.watch(CALL, call.promise));
    watch.heard(CALL, 5_000);
    for (let tick = 0; tick < 10; tick += 1) {
      watch.heard('7d3c2b1a-0f9e-4d8c-8b7a-6e5f4d3c2b1a', 5_000);
      await jest.advanceTimersByTimeAsync(5_000);
    }
    // 50 s of silence for this call: ten intervals of 5 s, then the 3 s confirmation.
    expect(outcome.settled).toBe(false);
    await jest.advanceTimersByTimeAsync(3_000);
    expect(outcome.settled).toBe(true);
    expect(isAppError(outcome.error) && outcome.error.details).toMatchObject({
      reason: 'broker_gone',
    });
  });
});
