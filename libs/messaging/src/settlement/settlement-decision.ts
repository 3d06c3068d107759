import { settlementFor, toAppError } from '@caravel/errors';
import { backoffDelay } from './backoff-schedule.js';

/**
 * What to tell the broker about one delivery. A `term` always comes with a dead-letter record. A
 * `nak` with `outage` failed because a dependency of the platform was unavailable: it does not
 * count against `maxDeliver` (the adapter remembers it as an outage delivery).
 */
export type SettlementDecision =
  | { action: 'ack' }
  | { action: 'nak'; delayMs: number; outage: boolean }
  | { action: 'term'; reason: string };

export type HandlerOutcome = { ok: true } | { ok: false; error: unknown };

/** What settles a delivery besides its outcome: how many deliveries it had, and how old it is. */
export interface DeliveryAttempt {
  /** This delivery's number, 1 on the first. */
  deliveryCount: number;
  /** Earlier deliveries of the message that failed with an outage (not counted against maxDeliver). */
  outages: number;
  /** Milliseconds since the message was stored. */
  ageMs: number;
}

/** The consumer options the decision reads. */
export interface SettlementPolicy {
  maxDeliver: number;
  backoffMs: readonly number[];
  /** How old a message may grow while an outage keeps it before it is dead-lettered after all. */
  outageHorizonMs: number;
  /** The longest delay before an outage failure is tried again. */
  outageMaxDelayMs: number;
}

/** `CODE: message`, the form dead-letter reasons and logs use. */
export function describeFailure(error: unknown): string {
  const appError = toAppError(error);
  return `${appError.code}: ${appError.message}`;
}

/**
 * Whether a failure is an outage of one of the platform's own dependencies (the database, the
 * bus, a sibling service): a retryable `DEPENDENCY_UNAVAILABLE`. Nothing about the message is
 * wrong, so trying it again later is right however many times it takes.
 */
export function isOutage(outcome: HandlerOutcome): boolean {
  if (outcome.ok) return false;
  const error = toAppError(outcome.error);
  return error.code === 'DEPENDENCY_UNAVAILABLE' && error.retryable;
}

/** The delay after the `failures`-th outage failure in a row: the backoff schedule, capped. */
export function outageDelay(
  policy: Pick<SettlementPolicy, 'backoffMs' | 'outageMaxDelayMs'>,
  failures: number,
): number {
  return Math.min(backoffDelay(policy.backoffMs, failures), policy.outageMaxDelayMs);
}

function duration(ms: number): string {
  if (ms >= 3_600_000) return `${Math.round(ms / 360_000) / 10} h`;
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/**
 * Decides the settlement of one delivery from its handler's outcome. Success (and a duplicate)
 * acks; anything not retryable is poison and terms at once. An outage failure naks with the
 * backoff schedule capped at `outageMaxDelayMs`, however many deliveries it took, until the
 * message is `outageHorizonMs` old. Any other retryable failure naks with the backoff of the
 * deliveries it has used up (outage deliveries excepted) and is given up on at `maxDeliver`.
 */
export function decideSettlement(
  outcome: HandlerOutcome,
  attempt: DeliveryAttempt,
  policy: SettlementPolicy,
): SettlementDecision {
  const settlement = settlementFor(outcome);
  if (settlement === 'ack' || outcome.ok) return { action: 'ack' };
  const failure = describeFailure(outcome.error);
  if (settlement === 'term') return { action: 'term', reason: failure };
  if (isOutage(outcome)) {
    if (attempt.ageMs >= policy.outageHorizonMs) {
      return {
        action: 'term',
        reason: `outage outlasted the ${duration(policy.outageHorizonMs)} horizon (${attempt.deliveryCount} deliveries): ${failure}`,
      };
    }
    const delayMs = outageDelay(policy, attempt.deliveryCount);
    const left = policy.outageHorizonMs - attempt.ageMs;
    return { action: 'nak', delayMs: Math.min(delayMs, left), outage: true };
  }
  const spent = attempt.deliveryCount - attempt.outages;
  if (spent >= policy.maxDeliver) {
    return {
      action: 'term',
      reason: `max deliveries reached (${spent}/${policy.maxDeliver}): ${failure}`,
    };
  }
  return { action: 'nak', delayMs: backoffDelay(policy.backoffMs, spent), outage: false };
}
