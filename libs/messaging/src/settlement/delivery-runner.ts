import type { MessageDefinition } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { z } from 'zod';
import type { Delivery, DeliveryHandler } from '../bus.port.js';
import {
  decideSettlement,
  type HandlerOutcome,
  type SettlementDecision,
} from './settlement-decision.js';

/** A delivery as an adapter receives it, before the payload is trusted. */
export interface RawDelivery {
  payload: string;
  subject: string;
  stream: string;
  sequence: number;
  deliveryCount: number;
  working(): Promise<void>;
}

function parsePayload<S extends z.ZodObject>(definition: MessageDefinition<S>, payload: string) {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    throw new AppError(
      'MESSAGE_MALFORMED',
      `${definition.type} v${definition.version} payload is not JSON`,
    );
  }
  return definition.parse(json);
}

/**
 * Validates a raw delivery against its definition, runs the handler on it and decides the
 * settlement. An envelope that fails its schema never reaches the handler and is termed.
 */
export async function runDelivery<S extends z.ZodObject>(
  definition: MessageDefinition<S>,
  raw: RawDelivery,
  handler: DeliveryHandler<z.output<S>>,
  policy: { maxDeliver: number; backoffMs: readonly number[] },
): Promise<SettlementDecision> {
  let outcome: HandlerOutcome;
  try {
    const envelope = parsePayload(definition, raw.payload);
    const delivery: Delivery<z.output<S>> = {
      envelope,
      subject: raw.subject,
      stream: raw.stream,
      sequence: raw.sequence,
      deliveryCount: raw.deliveryCount,
      working: () => raw.working(),
    };
    await handler(delivery);
    outcome = { ok: true };
  } catch (error) {
    outcome = { ok: false, error };
  }
  return decideSettlement(outcome, raw.deliveryCount, policy);
}
