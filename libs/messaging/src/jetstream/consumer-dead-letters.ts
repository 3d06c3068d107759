import type { JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection, Subscription as CoreSubscription } from '@nats-io/nats-core';
import { backoffDelay, type BusLogger, type ResolvedConsumerOptions } from '../settlement/index.js';
import type { DeadLetterFacts, DeadLetterStore } from './dead-letter-store.js';
import type { Namespace } from './namespace.js';

/** The reason of a dead letter whose handler kept missing its ack deadline. */
export const NEVER_SETTLED = 'the handler never settled within the ack deadline';

interface AdvisoryBody {
  stream_seq?: number;
  deliveries?: number;
}

/** What one consumer's dead letters need: the connection, the store and where it consumes. */
export interface ConsumerDeadLettersDeps {
  nc: NatsConnection;
  jsm: JetStreamManager;
  namespace: Namespace;
  deadLetters: DeadLetterStore;
  logger: BusLogger;
  /** The server-side stream name (namespaced). */
  stream: string;
  /** The logical stream name, as the records carry it. */
  logicalStream: string;
  options: ResolvedConsumerOptions;
}

/**
 * The dead letters of one `consume()` call, from both paths that give up on a message: the
 * handler's outcome ({@link termWithRecord}) and the server's max-deliveries advisory, which
 * covers a handler that kept missing its ack deadline ({@link listen}).
 */
export class ConsumerDeadLetters {
  private readonly advisories: CoreSubscription[] = [];

  constructor(private readonly deps: ConsumerDeadLettersDeps) {}

  /** Records the dead letter first: if that fails, the message is retried rather than lost. */
  async termWithRecord(message: JsMsg, reason: string): Promise<void> {
    const { namespace, logicalStream, options } = this.deps;
    const recorded = await this.record({
      stream: logicalStream,
      consumer: options.durable,
      sequence: message.seq,
      subject: namespace.logicalSubject(message.subject),
      deliveries: message.info.deliveryCount,
      reason,
      payload: message.string(),
    });
    if (!recorded) {
      message.nak(backoffDelay(options.backoffMs, message.info.deliveryCount));
      return;
    }
    // 2.9 ignores a reason given to term() (and redelivers), so the reason lives in the record.
    message.term();
  }

  /** False (and logged) when the record could not be written: the caller retries the message. */
  async record(facts: DeadLetterFacts): Promise<boolean> {
    try {
      await this.deps.deadLetters.record(facts);
      return true;
    } catch (error) {
      this.deps.logger.error(
        `could not record dead letter for seq ${facts.sequence}, will retry: ${String(error)}`,
      );
      return false;
    }
  }

  /** Dead-letters what the server gives up on for the durable `durable` (its advisory). */
  listen(durable: string): void {
    const subject = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${this.deps.stream}.${durable}`;
    const sub = this.deps.nc.subscribe(subject, {
      callback: (error, message) => {
        if (error) return;
        void this.recordExhausted(message.json<AdvisoryBody>()).catch((cause: unknown) =>
          this.deps.logger.error(
            `could not dead-letter from advisory on ${subject}: ${String(cause)}`,
          ),
        );
      },
    });
    this.advisories.push(sub);
  }

  async drain(): Promise<void> {
    await Promise.all(this.advisories.map((sub) => sub.drain().catch(() => undefined)));
  }

  private async recordExhausted(advisory: AdvisoryBody): Promise<void> {
    const sequence = advisory.stream_seq;
    if (sequence === undefined) return;
    const { jsm, stream, namespace, logicalStream, options } = this.deps;
    const original = await jsm.streams.getMessage(stream, { seq: sequence });
    if (!original) return;
    const deliveries = advisory.deliveries ?? options.maxDeliver;
    await this.deps.deadLetters.record({
      stream: logicalStream,
      consumer: options.durable,
      sequence,
      subject: namespace.logicalSubject(original.subject),
      deliveries,
      reason: `max deliveries reached (${deliveries}/${options.maxDeliver}): ${NEVER_SETTLED}`,
      payload: original.string(),
    });
  }
}
