import {
  context,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { TRACEPARENT_PATTERN } from '@caravel/contracts';

/**
 * OpenTelemetry spans for the bus, through the API only: without an SDK registered (traces off,
 * the default) every call here is a no-op and the W3C `traceparent` still travels as before.
 */
const tracer = () => trace.getTracer('caravel.messaging');

/** `00-<trace id>-<span id>-<flags>` of a span. */
export function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

/** The traceparent of the span recording now (traces on, inside a span), else undefined. */
export function recordingTraceparent(): string | undefined {
  const span = trace.getActiveSpan();
  return span?.isRecording() ? traceparentOf(span) : undefined;
}

/** A context whose parent span is the (remote) one `traceparent` names; the active one without. */
export function contextOfTraceparent(traceparent: string | undefined): Context {
  if (!traceparent || !TRACEPARENT_PATTERN.test(traceparent)) return context.active();
  const [, traceId = '', spanId = '', flags = '01'] = traceparent.split('-');
  return trace.setSpanContext(context.active(), {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16),
    isRemote: true,
  });
}

/** What a handler span is: its name, kind and attributes. */
export interface SpanOptions {
  readonly name: string;
  readonly kind: SpanKind;
  readonly attributes: Attributes;
}

/**
 * Runs `fn` in a span that is a child of `traceparent` (a message's or a request's), active for
 * everything `fn` awaits, ended when it settles (an error recorded on it). `fn` gets the
 * traceparent to run under: the span's own when it records, `traceparent` when traces are off.
 */
export function inSpan<T>(
  options: SpanOptions,
  traceparent: string,
  fn: (traceparent: string) => Promise<T>,
): Promise<T> {
  const { name, kind, attributes } = options;
  const parent = contextOfTraceparent(traceparent);
  return tracer().startActiveSpan(name, { kind, attributes }, parent, async (span) => {
    try {
      return await fn(span.isRecording() ? traceparentOf(span) : traceparent);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      span.recordException(error instanceof Error ? error : message);
      span.setStatus({ code: SpanStatusCode.ERROR, message });
      throw error;
    } finally {
      span.end();
    }
  });
}

export { SpanKind };
