import type { Envelope } from '@caravel/contracts';
import type { MessagePublisher } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';

/** A publisher double that builds every message as the real one does and keeps it. */
export interface RecordingPublisher {
  publisher: MessagePublisher;
  /** Every envelope published, in order. */
  published: Envelope<Record<string, unknown>>[];
  /** The types published, in order (`evt.run.started`, …). */
  types(): string[];
  /** The data of the messages of `type`, in order. */
  dataOf(type: string): Record<string, unknown>[];
}

/**
 * A strict {@link MessagePublisher} (only `publish`) that builds each envelope from its definition,
 * so data that breaks a message's schema fails the test, and records it. `refuse` makes a publish
 * of that type fail, as a bus that is away would.
 */
export function recordingPublisher(
  refuse: (type: string) => boolean = () => false,
): RecordingPublisher {
  const published: Envelope<Record<string, unknown>>[] = [];
  const publisher = strictMock<MessagePublisher>(
    {
      publish: (definition, data, options = {}) => {
        const envelope = definition.create(data, {
          source: 'runner-test',
          ...options,
        }) as Envelope<Record<string, unknown>>;
        if (refuse(envelope.type)) return Promise.reject(new Error(`bus refused ${envelope.type}`));
        published.push(envelope);
        return Promise.resolve({ stream: 'TEST', sequence: published.length, duplicate: false });
      },
    },
    'publisher',
  );
  return {
    publisher,
    published,
    types: () => published.map((envelope) => envelope.type),
    dataOf: (type) => published.filter((e) => e.type === type).map((e) => e.data),
  };
}
