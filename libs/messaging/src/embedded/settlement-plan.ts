import { settlementFor, toAppError } from '@caravel/errors';

/** What the embedded bus does with a delivery once its handler has finished. */
export type SettlementPlan =
  | { action: 'ack' }
  | { action: 'nak'; delayMs: number }
  | { action: 'dead-letter'; reason: string };

export type HandlerOutcome = { ok: true } | { ok: false; error: unknown };

/** Consumer settings that shape settlement. */
export interface RetryPolicy {
  maxDeliver: number;
  backoffMs: readonly number[];
}

/** One line that says why a message was given up on: `<CODE> <message>`. */
export function describeFailure(error: unknown): string {
  const appError = toAppError(error);
  return `${appError.code} ${appError.message}`;
}

/** The delay before the `deliveryCount`-th retry: successive entries, the last one repeating. */
export function backoffFor(deliveryCount: number, backoffMs: readonly number[]): number {
  if (backoffMs.length === 0) return 0;
  const index = Math.min(Math.max(deliveryCount - 1, 0), backoffMs.length - 1);
  return backoffMs[index] ?? 0;
}

/**
 * Turns a handler's outcome into a settlement. The ack/nak/term decision is `settlementFor`'s;
 * this adds what the bus owns: the nak delay, and the dead letter when a retry is no longer
 * allowed (a term, or a nak on the last permitted delivery).
 */
export function planSettlement(
  outcome: HandlerOutcome,
  deliveryCount: number,
  policy: RetryPolicy,
): SettlementPlan {
  const settlement = settlementFor(outcome);
  if (settlement === 'ack' || outcome.ok) return { action: 'ack' };
  if (settlement === 'term') return { action: 'dead-letter', reason: describeFailure(outcome.error) };
  if (deliveryCount >= policy.maxDeliver) {
    return { action: 'dead-letter', reason: `max deliveries reached: ${describeFailure(outcome.error)}` };
  }
  return { action: 'nak', delayMs: backoffFor(deliveryCount, policy.backoffMs) };
}
