import { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import { backoffFor, planSettlement } from './settlement-plan.js';

const policy = { maxDeliver: 3, backoffMs: [100, 500] };
const retryable = { ok: false as const, error: new AppError('DEPENDENCY_UNAVAILABLE', 'broker down') };

describe('settlement plan', () => {
  it('acks success and duplicates', () => {
    expect(planSettlement({ ok: true }, 1, policy)).toEqual({ action: 'ack' });
    expect(planSettlement({ ok: false, error: new AppError('DUPLICATE', 'seen') }, 1, policy)).toEqual({ action: 'ack' });
  });

  it('naks a retryable error with the backoff for its attempt, the last delay repeating', () => {
    expect(planSettlement(retryable, 1, { ...policy, maxDeliver: 10 })).toEqual({ action: 'nak', delayMs: 100 });
    expect(planSettlement(retryable, 2, { ...policy, maxDeliver: 10 })).toEqual({ action: 'nak', delayMs: 500 });
    expect(planSettlement(retryable, 7, { ...policy, maxDeliver: 10 })).toEqual({ action: 'nak', delayMs: 500 });
  });

  it('dead-letters a retryable error on the last allowed delivery, naming the cause', () => {
    const plan = planSettlement(retryable, 3, policy);
    expect(plan).toEqual({ action: 'dead-letter', reason: 'max deliveries reached: DEPENDENCY_UNAVAILABLE broker down' });
  });

  it('dead-letters a non-retryable error at once, and treats unknown throwables as retryable', () => {
    const poison = planSettlement({ ok: false, error: new AppError('PRECONDITION_FAILED', 'archived') }, 1, policy);
    expect(poison).toEqual({ action: 'dead-letter', reason: 'PRECONDITION_FAILED archived' });
    expect(planSettlement({ ok: false, error: new Error('boom') }, 1, policy)).toEqual({ action: 'nak', delayMs: 100 });
  });

  it('uses no delay when no backoff is configured', () => {
    expect(backoffFor(4, [])).toBe(0);
  });
});
