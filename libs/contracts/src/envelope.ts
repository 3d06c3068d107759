import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/** A W3C trace context `traceparent`: version 00, trace id, parent (span) id, flags. */
export const TRACEPARENT_PATTERN = /^00-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}$/;

/** Fields every message carries, whatever its payload. */
export const envelopeHeaderSchema = z.object({
  id: z.uuid(),
  type: z.string().regex(/^[a-z][a-z0-9]*(\.[a-z][a-z0-9-]*)+$/, 'type must be dotted lower-case'),
  version: z.number().int().positive(),
  occurredAt: z.iso.datetime({ offset: true }),
  source: z.string().min(1),
  correlationId: z.string().min(1),
  causationId: z.string().min(1).nullable(),
  idempotencyKey: z.string().min(1),
  /**
   * The W3C trace context of the publish (`00-<trace id>-<span id>-<flags>`), so a handler's work
   * joins the trace that caused it. Optional: messages stored before it existed have none.
   */
  traceparent: z.string().regex(TRACEPARENT_PATTERN).optional(),
});

export type EnvelopeHeader = z.infer<typeof envelopeHeaderSchema>;

/** A message on the bus: the header plus a typed payload. `id` doubles as `Nats-Msg-Id`. */
export interface Envelope<TData = unknown> extends EnvelopeHeader {
  data: TData;
}

/** What a publisher may set; the rest is filled in by {@link buildEnvelope}. */
export interface EnvelopeOptions {
  id?: string;
  occurredAt?: Date;
  source: string;
  correlationId?: string;
  causationId?: string | null;
  idempotencyKey?: string;
  traceparent?: string;
}

/** Options that make a new message a consequence of `cause` (same correlation, caused by it). */
export function causedBy(cause: EnvelopeHeader, source: string): EnvelopeOptions {
  return { source, correlationId: cause.correlationId, causationId: cause.id };
}

export function buildHeader(
  type: string,
  version: number,
  options: EnvelopeOptions,
): EnvelopeHeader {
  const id = options.id ?? randomUUID();
  return {
    id,
    type,
    version,
    occurredAt: (options.occurredAt ?? new Date()).toISOString(),
    source: options.source,
    correlationId: options.correlationId ?? id,
    causationId: options.causationId ?? null,
    idempotencyKey: options.idempotencyKey ?? id,
    ...(options.traceparent ? { traceparent: options.traceparent } : {}),
  };
}
