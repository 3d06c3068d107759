import { AppError } from '@caravel/errors';
import { backoffDelay, DEFAULT_BACKOFF_MS } from './backoff-schedule.js';
import { resolveConsumerOptions } from './consumer-defaults.js';
import { decideSettlement, type DeliveryAttempt } from './settlement-decision.js';

const policy = {
  maxDeliver: 3,
  backoffMs: [100, 500],
  outageHorizonMs: 60_000,
  outageMaxDelayMs: 300,
};

/** The `deliveryCount`-th delivery of a fresh message, none of whose earlier ones met an outage. */
function nth(deliveryCount: number, more: Partial<DeliveryAttempt> = {}): DeliveryAttempt {
  return { deliveryCount, outages: 0, ageMs: 1_000, ...more };
}

const outage = { ok: false, error: new AppError('DEPENDENCY_UNAVAILABLE', 'db down') } as const;

describe('backoff schedule', () => {
  it('uses one entry per failed delivery and repeats the last', () => {
    expect([1, 2, 3, 9].map((n) => backoffDelay([100, 500], n))).toEqual([100, 500, 500, 500]);
  });

  it('defaults to 1 s, 5 s, 30 s, 2 min', () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(DEFAULT_BACKOFF_MS, n))).toEqual([
      1_000, 5_000, 30_000, 120_000, 120_000,
    ]);
  });

  it('means no delay when the schedule is empty', () => {
    expect(backoffDelay([], 3)).toBe(0);
  });
});

describe('settlement decision', () => {
  it('acks success and duplicates', () => {
    expect(decideSettlement({ ok: true }, nth(1), policy)).toEqual({ action: 'ack' });
    expect(
      decideSettlement({ ok: false, error: new AppError('DUPLICATE', 'seen') }, nth(1), policy),
    ).toEqual({
      action: 'ack',
    });
  });

  it('naks a retryable failure with the backoff of its attempt', () => {
    const error = new AppError('TIMEOUT', 'slow');
    expect(decideSettlement({ ok: false, error }, nth(1), policy)).toEqual({
      action: 'nak',
      delayMs: 100,
      outage: false,
    });
    expect(decideSettlement({ ok: false, error }, nth(2), policy)).toEqual({
      action: 'nak',
      delayMs: 500,
      outage: false,
    });
  });

  it('gives up on a retryable failure at the last allowed delivery, saying why', () => {
    const decision = decideSettlement(
      { ok: false, error: new AppError('TIMEOUT', 'slow') },
      nth(3),
      policy,
    );
    expect(decision).toEqual({
      action: 'term',
      reason: 'max deliveries reached (3/3): TIMEOUT: slow',
    });
  });

  it('terms poison at once with its code and message', () => {
    const error = new AppError('MESSAGE_MALFORMED', 'data.n: expected number');
    expect(decideSettlement({ ok: false, error }, nth(1), policy)).toEqual({
      action: 'term',
      reason: 'MESSAGE_MALFORMED: data.n: expected number',
    });
  });

  it('treats an unknown throwable as a retryable internal error', () => {
    expect(decideSettlement({ ok: false, error: new TypeError('boom') }, nth(1), policy)).toEqual({
      action: 'nak',
      delayMs: 100,
      outage: false,
    });
  });

  it('keeps an outage failure past maxDeliver, with the backoff capped at outageMaxDelayMs', () => {
    const delays = [1, 2, 3, 4, 12].map((n) => decideSettlement(outage, nth(n), policy));
    expect(delays).toEqual(
      [100, 300, 300, 300, 300].map((delayMs) => ({ action: 'nak', delayMs, outage: true })),
    );
  });

  it('never schedules an outage retry past the horizon, and gives up once the message is that old', () => {
    expect(decideSettlement(outage, nth(9, { ageMs: 59_900 }), policy)).toEqual({
      action: 'nak',
      delayMs: 100,
      outage: true,
    });
    expect(decideSettlement(outage, nth(9, { ageMs: 60_000 }), policy)).toEqual({
      action: 'term',
      reason: 'outage outlasted the 60 s horizon (9 deliveries): DEPENDENCY_UNAVAILABLE: db down',
    });
  });

  it('does not count outage deliveries against maxDeliver for another failure', () => {
    const error = new AppError('TIMEOUT', 'slow');
    // Seven deliveries, five of them outages: two spent, the backoff of the second.
    expect(decideSettlement({ ok: false, error }, nth(7, { outages: 5 }), policy)).toEqual({
      action: 'nak',
      delayMs: 500,
      outage: false,
    });
    expect(decideSettlement({ ok: false, error }, nth(8, { outages: 5 }), policy)).toEqual({
      action: 'term',
      reason: 'max deliveries reached (3/3): TIMEOUT: slow',
    });
  });

  it('gives up at once on an outage its raiser says not to retry', () => {
    const error = new AppError('DEPENDENCY_UNAVAILABLE', 'gone for good', { retryable: false });
    expect(decideSettlement({ ok: false, error }, nth(1), policy)).toEqual({
      action: 'term',
      reason: 'DEPENDENCY_UNAVAILABLE: gone for good',
    });
  });
});

describe('consumer defaults', () => {
  it('fills in the documented defaults', () => {
    expect(resolveConsumerOptions({ durable: 'agent-runner' })).toEqual({
      durable: 'agent-runner',
      ordered: false,
      ackWaitMs: 30_000,
      maxDeliver: 5,
      backoffMs: DEFAULT_BACKOFF_MS,
      concurrency: 8,
      outageHorizonMs: 24 * 3_600_000,
      outageMaxDelayMs: 30_000,
    });
  });

  it('rejects names and numbers no broker accepts', () => {
    expect(() => resolveConsumerOptions({ durable: 'agent.runner' })).toThrow(
      /durable consumer name/,
    );
    expect(() => resolveConsumerOptions({ durable: 'a', maxDeliver: 0 })).toThrow(/maxDeliver/);
    expect(() => resolveConsumerOptions({ durable: 'a', backoffMs: [-1] })).toThrow(/backoffMs/);
    expect(() => resolveConsumerOptions({ durable: 'a', outageHorizonMs: 0 })).toThrow(/horizon/i);
  });
});
