import { AppError } from '@caravel/errors';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { DeadLetter, DeadLetterReplay, DeadLetterSelection } from '../bus.port.js';
import type { DeadLetterStore } from './dead-letter-store.js';
import type { Namespace } from './namespace.js';
import { parkedMessageKey, ParkedThreads, threadOf } from './parked-threads.js';
import { parkMessage } from './thread-parking.js';
import { isNotFound } from './stream-setup.js';

export interface DeadLetterReplayerDeps {
  nc: NatsConnection;
  jsm: JetStreamManager;
  namespace: Namespace;
  store: DeadLetterStore;
}

/**
 * Hands dead letters back to the consumers that gave up on them. The message is still in its
 * stream (limits retention, for the stream's max age), but the consumer's ack floor has passed
 * it, and re-publishing it would reach every consumer of the stream. So it is parked for that
 * consumer alone, as a failing message is: a shared consumer's as a message of its own, an
 * ordered one's in its thread's record (behind what the thread has parked already, ahead of its
 * later messages). The consumer's replicas watch that bucket and run it with a fresh count of
 * deliveries. Then the letter is marked replayed.
 */
export class DeadLetterReplayer {
  constructor(private readonly deps: DeadLetterReplayerDeps) {}

  async replay(selection: DeadLetterSelection): Promise<DeadLetterReplay[]> {
    const ordered = new Map<string, Promise<boolean>>();
    const replays: DeadLetterReplay[] = [];
    for (const letter of await this.deps.store.list(selection)) {
      if (letter.replayedAt !== null) {
        replays.push({ letter, outcome: 'already-replayed' });
        continue;
      }
      const stream = this.deps.namespace.streamName({ name: letter.stream });
      const shape = `${stream}/${letter.consumer}`;
      let isOrdered = ordered.get(shape);
      if (isOrdered === undefined) {
        isOrdered = this.isOrdered(stream, letter.consumer);
        ordered.set(shape, isOrdered);
      }
      replays.push({ letter, outcome: await this.replayOne(letter, stream, await isOrdered) });
    }
    return replays;
  }

  private async replayOne(
    letter: DeadLetter,
    stream: string,
    ordered: boolean,
  ): Promise<DeadLetterReplay['outcome']> {
    const stored = await this.deps.jsm.streams.getMessage(stream, { seq: letter.sequence });
    if (!stored) return 'expired';
    const { nc, namespace } = this.deps;
    const scope = `${letter.stream}.${letter.consumer}`;
    const parked = new ParkedThreads(nc, namespace.parkingBucket(), scope);
    const key = ordered ? threadOf(letter.subject) : parkedMessageKey(letter.sequence);
    const start = { deliveries: 0, outages: 0, dueAt: Date.now() };
    // Parked first, then marked: a replay cut off between the two is done again, and parking
    // the same message twice queues it once while its record lasts (the handlers dedupe beyond).
    await parkMessage(parked, key, letter.sequence, start);
    const marked = await this.deps.store.markReplayed(letter, new Date());
    return marked ? 'replayed' : 'already-replayed';
  }

  /** Whether the consumer is ordered (one durable per partition) or shared (one durable). */
  private async isOrdered(stream: string, durable: string): Promise<boolean> {
    const { jsm, namespace } = this.deps;
    const exists = (name: string) =>
      jsm.consumers.info(stream, name).then(
        () => true,
        (error: unknown) => {
          if (isNotFound(error)) return false;
          throw error;
        },
      );
    if (await exists(namespace.consumerName(durable))) return false;
    if (await exists(namespace.partitionConsumerName(durable, 0))) return true;
    throw new AppError(
      'NOT_FOUND',
      `no consumer ${durable} on ${stream}: its dead letters can only be replayed to it once it exists`,
    );
  }
}
