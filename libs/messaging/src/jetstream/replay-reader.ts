import type { StreamSpec } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import {
  DeliverPolicy,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type OrderedConsumerOptions,
} from '@nats-io/jetstream';
import type { Envelope } from '@caravel/contracts';
import type { ReplayOptions, StoredMessage } from '../bus.port.js';
import type { Namespace } from './namespace.js';
import { isNotFound } from './stream-setup.js';

const REPLAY_BATCH = 256;
/** No message for this long means the reader has caught up. */
const CAUGHT_UP_AFTER_MS = 1_000;

/**
 * The subject filter a replay reads, in logical (un-namespaced) form. A thread filter is cut from
 * the stream's own subject (`thread.*.evt.>` -> `thread.<id>.evt.>`): 2.9 only accepts a consumer
 * filter that is a subset of one stream subject.
 */
export function replayFilter(
  spec: Pick<StreamSpec, 'name' | 'subjects'>,
  options: ReplayOptions,
): string | undefined {
  if (options.filter) return options.filter;
  if (options.threadId === undefined) return undefined;
  const threadSubject = spec.subjects.find((subject) => subject.startsWith('thread.*.'));
  if (!threadSubject) {
    throw new AppError(
      'BAD_REQUEST',
      `stream ${spec.name} holds no thread-scoped subjects to filter by thread`,
    );
  }
  return `thread.${options.threadId}.${threadSubject.slice('thread.*.'.length)}`;
}

/** Reads stored messages in order with an ephemeral ordered consumer. */
export class ReplayReader {
  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly namespace: Namespace,
  ) {}

  async *read(spec: StreamSpec, options: ReplayOptions = {}): AsyncGenerator<StoredMessage> {
    const stream = this.namespace.streamName(spec);
    const logical = replayFilter(spec, options);
    const filter = logical === undefined ? undefined : this.namespace.subject(logical);
    if (await this.nothingToRead(stream, filter)) return;
    const consumer = await this.js.consumers.get(stream, this.consumerOptions(filter, options));
    // Consumed, not fetched batch by batch: the next pull is asked for while this one is read,
    // so a long replay never waits a round trip between batches. The reader has caught up at the
    // message after which none is pending, or when none came for a while (the messages it was
    // to read were removed meanwhile). Only the wait for the server is timed, never the reader's
    // own work between two messages.
    const messages = await consumer.consume({ max_messages: REPLAY_BATCH });
    let idle: NodeJS.Timeout | undefined;
    const waitForNext = () => {
      idle = setTimeout(() => messages.stop(), CAUGHT_UP_AFTER_MS);
    };
    try {
      waitForNext();
      for await (const message of messages) {
        clearTimeout(idle);
        yield this.toStored(spec, message);
        if (message.info.pending === 0) return;
        waitForNext();
      }
    } finally {
      clearTimeout(idle);
      messages.stop();
    }
  }

  private consumerOptions(
    filter: string | undefined,
    options: ReplayOptions,
  ): Partial<OrderedConsumerOptions> {
    const base: Partial<OrderedConsumerOptions> =
      filter === undefined ? {} : { filter_subjects: filter };
    if (options.fromSequence !== undefined) {
      return {
        ...base,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: options.fromSequence,
      };
    }
    if (options.fromTime !== undefined) {
      return {
        ...base,
        deliver_policy: DeliverPolicy.StartTime,
        opt_start_time: options.fromTime.toISOString(),
      };
    }
    return { ...base, deliver_policy: DeliverPolicy.All };
  }

  /** Answers "empty" cheaply so a replay of nothing does not wait for a pull to expire. */
  private async nothingToRead(stream: string, filter: string | undefined): Promise<boolean> {
    try {
      const info = await this.jsm.streams.info(
        stream,
        filter === undefined ? {} : { subjects_filter: filter },
      );
      if (filter === undefined) return info.state.messages === 0;
      return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0) === 0;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  }

  private toStored(spec: StreamSpec, message: JsMsg): StoredMessage {
    return {
      stream: spec.name,
      sequence: message.seq,
      subject: this.namespace.logicalSubject(message.subject),
      storedAt: message.time,
      envelope: message.json<Envelope>(),
    };
  }
}
