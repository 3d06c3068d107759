import { StartRunV1, TRACEPARENT_PATTERN, type Envelope } from '@caravel/contracts';
import { strictMock } from '@caravel/testing/doubles';
import type { Bus, PublishAck } from '../bus.port.js';
import { MessagePublisher } from '../nest/message-publisher.js';
import {
  childTraceparent,
  outgoingRequestHeaders,
  runInTrace,
  traceOfHeaders,
  type MessageTrace,
} from './message-trace.js';

const PARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
const HANDLING: MessageTrace = {
  correlationId: 'conversation-1',
  causationId: '0d4f6a63-3f3a-4c39-9f2a-0c1f7f7b8a10',
  traceparent: PARENT,
};

const traceId = (traceparent: string | undefined) => traceparent?.split('-')[1];
const spanId = (traceparent: string | undefined) => traceparent?.split('-')[2];

/** A publisher over a bus that only records what it is asked to publish. */
function recordingPublisher(): { publisher: MessagePublisher; published: Envelope[] } {
  const published: Envelope[] = [];
  const bus = strictMock<Bus>(
    {
      publish: (_definition, envelope) => {
        published.push(envelope);
        return Promise.resolve<PublishAck>({ stream: 'S', sequence: 1, duplicate: false });
      },
    },
    'bus',
  );
  return { publisher: new MessagePublisher(bus, 'spec'), published };
}

describe('message trace', () => {
  it('makes a child span of a traceparent: same trace and flags, a new span', () => {
    const child = childTraceparent(PARENT);
    expect(child).toMatch(TRACEPARENT_PATTERN);
    expect(traceId(child)).toBe(traceId(PARENT));
    expect(child.endsWith('-01')).toBe(true);
    expect(spanId(child)).not.toBe(spanId(PARENT));
  });

  it('draws ids that do not repeat across many refills of its random pool', () => {
    // 1,000 new traces take 24 bytes each: the 4 KiB pool is refilled five times.
    const made = Array.from({ length: 1_000 }, () => childTraceparent());
    for (const traceparent of made) expect(traceparent).toMatch(TRACEPARENT_PATTERN);
    expect(new Set(made.map(traceId)).size).toBe(made.length);
    expect(new Set(made.map(spanId)).size).toBe(made.length);
    expect(made.map(traceId)).not.toContain('0'.repeat(32));
  });

  it('starts a new trace without a parent, or with a malformed one', () => {
    for (const parent of [undefined, 'nonsense', `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`]) {
      const fresh = childTraceparent(parent);
      expect(fresh).toMatch(TRACEPARENT_PATTERN);
      expect(traceId(fresh)).not.toBe(traceId(PARENT));
    }
  });

  it('publishes inside a handler with its correlation, its message as cause and a child span', async () => {
    const { publisher, published } = recordingPublisher();
    await runInTrace(HANDLING, () => publisher.publish(StartRunV1, StartRunV1.fixture().data));
    const [envelope] = published;
    expect(envelope).toMatchObject({
      correlationId: 'conversation-1',
      causationId: HANDLING.causationId,
    });
    expect(traceId(envelope?.traceparent)).toBe(traceId(PARENT));
    expect(spanId(envelope?.traceparent)).not.toBe(spanId(PARENT));
  });

  it('lets a publisher name the cause itself, and starts a trace outside a handler', async () => {
    const { publisher, published } = recordingPublisher();
    await runInTrace(HANDLING, () =>
      publisher.publish(StartRunV1, StartRunV1.fixture().data, {
        correlationId: 'other',
        causationId: null,
      }),
    );
    await publisher.publish(StartRunV1, StartRunV1.fixture().data);
    const [explicit, outside] = published;
    expect(explicit).toMatchObject({ correlationId: 'other', causationId: null });
    expect(traceId(explicit?.traceparent)).toBe(traceId(PARENT));
    expect(outside).toMatchObject({ correlationId: outside?.id, causationId: null });
    expect(outside?.traceparent).toMatch(TRACEPARENT_PATTERN);
    expect(traceId(outside?.traceparent)).not.toBe(traceId(PARENT));
  });

  it("sends a request with the handler's correlation and a child span, read back on serving", () => {
    const headers = runInTrace(HANDLING, () => outgoingRequestHeaders());
    expect(headers['Caravel-Correlation-Id']).toBe('conversation-1');
    expect(traceId(headers.traceparent)).toBe(traceId(PARENT));
    expect(traceOfHeaders(headers)).toEqual({
      correlationId: 'conversation-1',
      causationId: null,
      traceparent: headers.traceparent,
    });
    expect(outgoingRequestHeaders()['Caravel-Correlation-Id']).toBeUndefined();
  });
});
