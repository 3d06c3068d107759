import { AppError } from '@caravel/errors';
import { backoffDelay, DEFAULT_BACKOFF_MS } from './backoff-schedule.js';
import { resolveConsumerOptions } from './consumer-defaults.js';
import { decideSettlement } from './settlement-decision.js';

const policy = { maxDeliver: 3, backoffMs: [100, 500] };

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
    expect(decideSettlement({ ok: true }, 1, policy)).toEqual({ action: 'ack' });
    expect(
      decideSettlement({ ok: false, error: new AppError('DUPLICATE', 'seen') }, 1, policy),
    ).toEqual({
      action: 'ack',
    });
  });

  it('naks a retryable failure with the backoff of its attempt', () => {
    const error = new AppError('TIMEOUT', 'slow');
    expect(decideSettlement({ ok: false, error }, 1, policy)).toEqual({
      action: 'nak',
      delayMs: 100,
    });
    expect(decideSettlement({ ok: false, error }, 2, policy)).toEqual({
      action: 'nak',
      delayMs: 500,
    });
  });

  it('gives up on a retryable failure at the last allowed delivery, saying why', () => {
    const decision = decideSettlement(
      { ok: false, error: new AppError('TIMEOUT', 'slow') },
      3,
      policy,
    );
    expect(decision).toEqual({
      action: 'term',
      reason: 'max deliveries reached (3/3): TIMEOUT: slow',
    });
  });

  it('terms poison at once with its code and message', () => {
    const error = new AppError('MESSAGE_MALFORMED', 'data.n: expected number');
    expect(decideSettlement({ ok: false, error }, 1, policy)).toEqual({
      action: 'term',
      reason: 'MESSAGE_MALFORMED: data.n: expected number',
    });
  });

  it('treats an unknown throwable as a retryable internal error', () => {
    expect(decideSettlement({ ok: false, error: new TypeError('boom') }, 1, policy)).toEqual({
      action: 'nak',
      delayMs: 100,
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
    });
  });

  it('rejects names and numbers no broker accepts', () => {
    expect(() => resolveConsumerOptions({ durable: 'agent.runner' })).toThrow(
      /durable consumer name/,
    );
    expect(() => resolveConsumerOptions({ durable: 'a', maxDeliver: 0 })).toThrow(/maxDeliver/);
    expect(() => resolveConsumerOptions({ durable: 'a', backoffMs: [-1] })).toThrow(/backoffMs/);
  });
});
