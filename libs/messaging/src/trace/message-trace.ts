import { TRACEPARENT_PATTERN, type EnvelopeHeader, type EnvelopeOptions } from '@caravel/contracts';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomFillSync, randomUUID } from 'node:crypto';
import { recordingTraceparent } from './message-spans.js';

/**
 * What a message handler runs under: the correlation id of the conversation it belongs to, the
 * message that caused it, and its W3C trace context. Everything the handler publishes or requests
 * carries the same correlation and a child of its trace.
 */
export interface MessageTrace {
  readonly correlationId: string;
  /** The envelope id of the message being handled; null for a request or a fresh trace. */
  readonly causationId: string | null;
  /** `00-<trace id>-<span id>-<flags>`: the span of the message being handled. */
  readonly traceparent: string;
}

/** The request headers that carry a trace across request/reply (NATS headers, or in-process). */
export const TRACE_HEADERS = {
  traceparent: 'traceparent',
  correlationId: 'Caravel-Correlation-Id',
} as const;

export type RequestHeaders = Readonly<Record<string, string>>;

const storage = new AsyncLocalStorage<MessageTrace>();

/** The trace of the handler running now, if any. */
export function currentTrace(): MessageTrace | undefined {
  return storage.getStore();
}

/** Runs `fn` (and everything it awaits or schedules) under `trace`. */
export function runInTrace<T>(trace: MessageTrace, fn: () => T): T {
  return storage.run(trace, fn);
}

/**
 * Random bytes for trace and span ids come from a pool the CSPRNG fills 4 KiB at a time: a
 * message's ids cost a slice of it, not a call into the kernel's generator each (under the
 * ingress peak those calls were 2.4% of the process).
 */
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let taken = 0;

function hex(bytes: number): string {
  if (taken + bytes > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    taken = 0;
  }
  const text = pool.toString('hex', taken, taken + bytes);
  taken += bytes;
  return text;
}

/** A child span of `parent`: same trace id and flags, a new span id; a new trace without one. */
export function childTraceparent(parent?: string): string {
  if (parent && TRACEPARENT_PATTERN.test(parent)) {
    const [version, traceId, , flags] = parent.split('-');
    return `${version}-${traceId}-${hex(8)}-${flags}`;
  }
  return `00-${hex(16)}-${hex(8)}-01`;
}

/** The trace a handler of `envelope` runs under: its correlation, caused by it, in its span. */
export function traceOfEnvelope(envelope: EnvelopeHeader): MessageTrace {
  return {
    correlationId: envelope.correlationId,
    causationId: envelope.id,
    traceparent:
      envelope.traceparent && TRACEPARENT_PATTERN.test(envelope.traceparent)
        ? envelope.traceparent
        : childTraceparent(),
  };
}

/** The trace a request handler runs under, from the request's headers (a fresh one without). */
export function traceOfHeaders(headers: RequestHeaders): MessageTrace {
  const traceparent = headers[TRACE_HEADERS.traceparent];
  return {
    correlationId: headers[TRACE_HEADERS.correlationId] || randomUUID(),
    causationId: null,
    traceparent:
      traceparent && TRACEPARENT_PATTERN.test(traceparent) ? traceparent : childTraceparent(),
  };
}

/**
 * The headers of an outgoing request, set here for both adapters: the current handler's
 * correlation id and a child of its span (a new trace outside a handler).
 */
export function outgoingRequestHeaders(): Record<string, string> {
  const trace = currentTrace();
  return {
    [TRACE_HEADERS.traceparent]: recordingTraceparent() ?? childTraceparent(trace?.traceparent),
    ...(trace ? { [TRACE_HEADERS.correlationId]: trace.correlationId } : {}),
  };
}

/**
 * Envelope options for a publish: what the caller gave, the rest from the handler running now
 * (its correlation, caused by its message) and a child of its span as the traceparent — with
 * traces on, the span recording now, so the consumer's span is a child of a span that exists.
 */
export function tracedEnvelopeOptions(options: EnvelopeOptions): EnvelopeOptions {
  const trace = currentTrace();
  return {
    ...(trace ? { correlationId: trace.correlationId, causationId: trace.causationId } : {}),
    ...options,
    traceparent:
      options.traceparent ?? recordingTraceparent() ?? childTraceparent(trace?.traceparent),
  };
}
