import { DeadLetterRecordedV1, STREAMS } from '@caravel/contracts';
import { deadLetterId, selectsDeadLetter } from '@caravel/db';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { DeadLetter, DeadLetterSelection } from '../bus.port.js';
import type { BusLogger } from '../settlement/index.js';
import { casOrNull, KvBucket } from './kv-bucket.js';
import type { Namespace } from './namespace.js';
import { encodeJson } from './reply-codec.js';
import type { ReplayReader } from './replay-reader.js';

/** What a dead letter says about the message it replaces. */
export type DeadLetterFacts = Omit<DeadLetter, 'id' | 'recordedAt' | 'replayedAt'>;

/** A dead letter's key in the replayed bucket (KV keys take no ':'). */
function markKey(letter: Pick<DeadLetter, 'stream' | 'consumer' | 'sequence'>): string {
  return `${letter.stream}.${letter.consumer}.${letter.sequence}`;
}

/**
 * Records given-up messages in the DEAD_LETTERS stream. The broker message id is
 * `<stream>:<consumer>:<sequence>`, so the handler path and the max-deliveries advisory (and every
 * replica that hears it) can all record the same message and only one record is kept. A letter
 * handed back to its consumer is marked in the `caravel_replayed` KV bucket, by the same id.
 */
export class DeadLetterStore {
  private readonly marks: KvBucket;

  constructor(
    nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly namespace: Namespace,
    private readonly reader: ReplayReader,
    private readonly source: string,
    private readonly logger: BusLogger,
  ) {
    this.marks = new KvBucket(nc, namespace.replayedBucket());
  }

  async record(facts: DeadLetterFacts): Promise<void> {
    const envelope = DeadLetterRecordedV1.create(facts, { source: this.source });
    const subject = this.namespace.subject(DeadLetterRecordedV1.subjectFor(envelope.data));
    const msgID = deadLetterId(facts.stream, facts.consumer, facts.sequence);
    const ack = await this.js.publish(subject, encodeJson(envelope), { msgID });
    if (!ack.duplicate) {
      this.logger.warn(
        `dead-lettered ${facts.subject} (${msgID}) after ${facts.deliveries} deliveries: ${facts.reason}`,
      );
    }
  }

  async list(selection: DeadLetterSelection = {}): Promise<DeadLetter[]> {
    const replayed = await this.replayedMarks();
    const letters: DeadLetter[] = [];
    for await (const stored of this.reader.read(STREAMS.DEAD_LETTERS)) {
      try {
        const { data, occurredAt } = DeadLetterRecordedV1.parse(stored.envelope);
        const letter: DeadLetter = {
          ...data,
          id: deadLetterId(data.stream, data.consumer, data.sequence),
          recordedAt: new Date(occurredAt),
          replayedAt: replayed.get(markKey(data)) ?? null,
        };
        if (selectsDeadLetter(selection, letter)) letters.push(letter);
      } catch (error) {
        this.logger.warn(
          `skipping unreadable dead letter seq ${stored.sequence}: ${String(error)}`,
        );
      }
    }
    return letters;
  }

  /** Marks a letter replayed; false when it already was (by another replay). */
  async markReplayed(letter: DeadLetter, at: Date): Promise<boolean> {
    const kv = await this.marks.open();
    const value = JSON.stringify({ replayedAt: at.toISOString() });
    return (await casOrNull(kv.create(markKey(letter), value))) !== null;
  }

  private async replayedMarks(): Promise<Map<string, Date>> {
    const kv = await this.marks.open();
    const marks = new Map<string, Date>();
    for await (const key of await kv.keys()) {
      const entry = await kv.get(key);
      if (entry?.operation !== 'PUT') continue;
      marks.set(key, new Date(entry.json<{ replayedAt: string }>().replayedAt));
    }
    return marks;
  }
}
