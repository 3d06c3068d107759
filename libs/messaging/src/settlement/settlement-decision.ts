import { settlementFor, toAppError } from '@caravel/errors';
import { backoffDelay } from './backoff-schedule.js';

/** What to tell the broker about one delivery. A `term` always comes with a dead-letter record. */
export type SettlementDecision =
  { action: 'ack' } | { action: 'nak'; delayMs: number } | { action: 'term'; reason: string };

export type HandlerOutcome = { ok: true } | { ok: false; error: unknown };

/** `CODE: message`, the form dead-letter reasons and logs use. */
export function describeFailure(error: unknown): string {
  const appError = toAppError(error);
  return `${appError.code}: ${appError.message}`;
}

/**
 * Decides the settlement of one delivery from its handler's outcome. Success (and a duplicate)
 * acks; a retryable failure naks with the backoff for this attempt, unless it was the last allowed
 * delivery, in which case it is given up on; anything else is poison and terms at once.
 */
export function decideSettlement(
  outcome: HandlerOutcome,
  deliveryCount: number,
  policy: { maxDeliver: number; backoffMs: readonly number[] },
): SettlementDecision {
  const settlement = settlementFor(outcome);
  if (settlement === 'ack' || outcome.ok) return { action: 'ack' };
  const failure = describeFailure(outcome.error);
  if (settlement === 'term') return { action: 'term', reason: failure };
  if (deliveryCount >= policy.maxDeliver) {
    return {
      action: 'term',
      reason: `max deliveries reached (${deliveryCount}/${policy.maxDeliver}): ${failure}`,
    };
  }
  return { action: 'nak', delayMs: backoffDelay(policy.backoffMs, deliveryCount) };
}
