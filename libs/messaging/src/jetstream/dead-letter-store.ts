import { DeadLetterRecordedV1, STREAMS } from '@caravel/contracts';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { DeadLetter } from '../bus.port.js';
import type { BusLogger } from '../settlement/index.js';
import type { Namespace } from './namespace.js';
import { encodeJson } from './reply-codec.js';
import type { ReplayReader } from './replay-reader.js';

/** What a dead letter says about the message it replaces. */
export type DeadLetterFacts = Omit<DeadLetter, 'recordedAt'>;

/**
 * Records given-up messages in the DEAD_LETTERS stream. The broker message id is
 * `<stream>:<consumer>:<sequence>`, so the handler path and the max-deliveries advisory (and every
 * replica that hears it) can all record the same message and only one record is kept.
 */
export class DeadLetterStore {
  constructor(
    private readonly js: JetStreamClient,
    private readonly namespace: Namespace,
    private readonly reader: ReplayReader,
    private readonly source: string,
    private readonly logger: BusLogger,
  ) {}

  async record(facts: DeadLetterFacts): Promise<void> {
    const envelope = DeadLetterRecordedV1.create(facts, { source: this.source });
    const subject = this.namespace.subject(DeadLetterRecordedV1.subjectFor(envelope.data));
    const msgID = `${facts.stream}:${facts.consumer}:${facts.sequence}`;
    const ack = await this.js.publish(subject, encodeJson(envelope), { msgID });
    if (!ack.duplicate) {
      this.logger.warn(
        `dead-lettered ${facts.subject} (${msgID}) after ${facts.deliveries} deliveries: ${facts.reason}`,
      );
    }
  }

  async list(filter: { consumer?: string } = {}): Promise<DeadLetter[]> {
    const letters: DeadLetter[] = [];
    for await (const stored of this.reader.read(STREAMS.DEAD_LETTERS)) {
      try {
        const { data, occurredAt } = DeadLetterRecordedV1.parse(stored.envelope);
        if (filter.consumer !== undefined && data.consumer !== filter.consumer) continue;
        letters.push({ ...data, recordedAt: new Date(occurredAt) });
      } catch (error) {
        this.logger.warn(
          `skipping unreadable dead letter seq ${stored.sequence}: ${String(error)}`,
        );
      }
    }
    return letters;
  }
}
