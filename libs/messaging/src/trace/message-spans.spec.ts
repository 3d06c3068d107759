import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { inSpan, recordingTraceparent, SpanKind } from './message-spans.js';
import { tracedEnvelopeOptions } from './message-trace.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
const span = { name: 'process trigger.received', kind: SpanKind.CONSUMER, attributes: {} };

describe('message spans without an SDK (traces off)', () => {
  it('run the handler under the message traceparent and record nothing', async () => {
    const seen = await inSpan(span, PARENT, (traceparent) => Promise.resolve(traceparent));
    expect(seen).toBe(PARENT);
    expect(recordingTraceparent()).toBeUndefined();
  });
});

describe('message spans with an SDK', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
  });

  it("make the handler's span a child of the message's, and what it publishes a child of it", async () => {
    const published = await inSpan(span, PARENT, async (traceparent) => {
      await new Promise((resolve) => setImmediate(resolve));
      return { traceparent, options: tracedEnvelopeOptions({ source: 'test' }) };
    });
    const [recorded] = exporter.getFinishedSpans();
    expect(recorded?.name).toBe('process trigger.received');
    expect(recorded?.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(recorded?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    const own = `00-${recorded?.spanContext().traceId}-${recorded?.spanContext().spanId}-01`;
    expect(published.traceparent).toBe(own);
    expect(published.options.traceparent).toBe(own);
  });

  it('records a failed handler as an error and rethrows', async () => {
    exporter.reset();
    await expect(inSpan(span, PARENT, () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
    expect(exporter.getFinishedSpans()[0]?.status).toMatchObject({ code: 2, message: 'boom' });
  });
});
