import { randomUUID } from 'node:crypto';
import { z } from 'zod';

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
  };
}
