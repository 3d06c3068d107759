import type { Consumable } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { busDeliveries, busHandlerDuration, startTimer } from '@caravel/metrics';
import type { Delivery, DeliveryHandler } from '../bus.port.js';
import type { DependencyVerdict } from './outage-breaker.js';
import {
  decideSettlement,
  isOutage,
  type HandlerOutcome,
  type SettlementDecision,
  type SettlementPolicy,
} from './settlement-decision.js';

/** A delivery as an adapter receives it, before the payload is trusted. */
export interface RawDelivery {
  payload: string;
  subject: string;
  stream: string;
  sequence: number;
  deliveryCount: number;
  /** Earlier deliveries of this message that failed with an outage. */
  outages: number;
  /** When the message was stored (its age bounds how long an outage may keep it). */
  storedAt: Date;
  working(): Promise<void>;
  /** Aborted when the consumer begins to stop (see {@link Delivery.stopping}). */
  stopping: AbortSignal;
}

/** How one delivery went: what to tell the broker, and what it says about the dependencies. */
export interface DeliveryResult {
  decision: SettlementDecision;
  /** `down` when the handler failed with an outage, `up` when it ran otherwise, else `unknown`. */
  dependency: DependencyVerdict;
}

function parsePayload<T>(definition: Consumable<T>, payload: string) {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    throw new AppError('MESSAGE_MALFORMED', `a ${definition.pattern} payload is not JSON`);
  }
  return definition.parse(json);
}

/**
 * Validates a raw delivery against its definition, runs the handler on it and decides the
 * settlement. An envelope that fails its schema never reaches the handler and is termed.
 */
export async function runDelivery<T>(
  definition: Consumable<T>,
  raw: RawDelivery,
  handler: DeliveryHandler<T>,
  policy: SettlementPolicy,
  now: () => number = Date.now,
): Promise<DeliveryResult> {
  let outcome: HandlerOutcome;
  let ran = false;
  const elapsed = startTimer();
  try {
    const envelope = parsePayload(definition, raw.payload);
    const delivery: Delivery<T> = {
      envelope,
      subject: raw.subject,
      stream: raw.stream,
      sequence: raw.sequence,
      deliveryCount: raw.deliveryCount,
      working: () => raw.working(),
      stopping: raw.stopping,
    };
    ran = true;
    await handler(delivery);
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const attempt = {
    deliveryCount: raw.deliveryCount,
    outages: raw.outages,
    ageMs: Math.max(0, now() - raw.storedAt.getTime()),
  };
  const dependency = !ran ? 'unknown' : isOutage(outcome) ? 'down' : 'up';
  const decision = decideSettlement(outcome, attempt, policy);
  busHandlerDuration.observe({ message: definition.pattern }, elapsed());
  busDeliveries.inc({ message: definition.pattern, settlement: decision.action });
  return { decision, dependency };
}
