import { busPublished } from '@caravel/metrics';
import { randomUUID } from 'node:crypto';
import {
  STREAMS,
  type Envelope,
  type Consumable,
  type MessageDefinition,
  type StreamSpec,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type { z } from 'zod';
import type * as Port from '../bus.port.js';
import type { BusLogger } from '../settlement/index.js';
import { DeadLetterReplayer } from './dead-letter-replayer.js';
import { DeadLetterStore } from './dead-letter-store.js';
import { JetStreamSubscription } from './jetstream-subscription.js';
import { KvLeaseStore } from './kv-lease-store.js';
import type { Namespace } from './namespace.js';
import { ReplayReader } from './replay-reader.js';
import { sendRequest, serveRequests } from './request-reply.js';
import { encodeJson } from './reply-codec.js';
import { applyStreams } from './stream-setup.js';

export interface JetStreamBusParts {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  namespace: Namespace;
  name: string;
  logger: BusLogger;
}

/** What the bus keeps of each consumer it opened, whatever it takes. */
type OpenConsumer = Pick<JetStreamSubscription<never>, 'durable' | 'backlog' | 'drain' | 'abandon'>;

/** The {@link Bus} on NATS JetStream (server 2.9+). Create it with `connectJetStreamBus`. */
export class JetStreamBus implements Port.Bus {
  readonly kind = 'jetstream' as const;
  readonly leases: KvLeaseStore;
  private readonly reader: ReplayReader;
  private readonly deadLetterStore: DeadLetterStore;
  private readonly replayer: DeadLetterReplayer;
  private readonly consumers = new Set<OpenConsumer>();
  private readonly served = new Set<Port.Subscription>();
  /** This instance's name on parked-thread claims. */
  private readonly holder: string;
  private closed = false;

  constructor(private readonly parts: JetStreamBusParts) {
    const { nc, js, jsm, namespace, name, logger } = parts;
    this.leases = new KvLeaseStore(nc, namespace.leaseBucket());
    this.reader = new ReplayReader(js, jsm, namespace);
    this.deadLetterStore = new DeadLetterStore(nc, js, namespace, this.reader, name, logger);
    this.replayer = new DeadLetterReplayer({ nc, jsm, namespace, store: this.deadLetterStore });
    this.holder = `${name}:${randomUUID().slice(0, 8)}`;
  }

  /** The NATS names this bus maps logical ones to (tests use it to clean up). */
  get namespace(): Namespace {
    return this.parts.namespace;
  }

  async ensureStreams(streams: readonly StreamSpec[]): Promise<void> {
    const withDeadLetters = streams.some((s) => s.name === STREAMS.DEAD_LETTERS.name)
      ? streams
      : [...streams, STREAMS.DEAD_LETTERS];
    await applyStreams(this.parts.jsm, withDeadLetters, this.parts.namespace);
    await this.leases.ensure();
  }

  async publish<S extends z.ZodObject>(
    definition: MessageDefinition<S>,
    envelope: Envelope<z.output<S>>,
  ): Promise<Port.PublishAck> {
    const subject = this.parts.namespace.subject(definition.subjectFor(envelope.data));
    try {
      const ack = await this.parts.js.publish(subject, encodeJson(envelope), {
        msgID: envelope.id,
      });
      busPublished.inc({
        message: definition.pattern,
        outcome: ack.duplicate ? 'duplicate' : 'stored',
      });
      return { stream: definition.stream.name, sequence: ack.seq, duplicate: ack.duplicate };
    } catch (error) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `could not store ${definition.type} on ${subject} (is stream ${definition.stream.name} created?): ${String(error)}`,
        { cause: error },
      );
    }
  }

  async consume<T>(
    definition: Consumable<T>,
    options: Port.ConsumerOptions,
    handler: Port.DeliveryHandler<T>,
  ): Promise<Port.Subscription> {
    const { nc, js, jsm, namespace, logger } = this.parts;
    const deadLetters = this.deadLetterStore;
    const deps = { nc, js, jsm, namespace, logger, deadLetters, holder: this.holder };
    const subscription = new JetStreamSubscription(deps, definition, options, handler);
    await subscription.start();
    this.consumers.add(subscription);
    return {
      drain: async () => {
        this.consumers.delete(subscription);
        await subscription.drain();
      },
    };
  }

  async backlog(): Promise<Port.ConsumerBacklog[]> {
    // Replicas of one durable in this process read the same server-side figures: one of each.
    const byDurable = new Map<string, OpenConsumer>();
    for (const subscription of this.consumers) byDurable.set(subscription.durable, subscription);
    return Promise.all([...byDurable.values()].map((subscription) => subscription.backlog()));
  }

  async serve(
    subject: string,
    handler: Port.RequestHandler,
    options: { queue?: string } = {},
  ): Promise<Port.Subscription> {
    const served = await serveRequests(this.parts.nc, this.parts.namespace, subject, handler, {
      ...options,
      logger: this.parts.logger,
    });
    this.served.add(served);
    return {
      drain: async () => {
        this.served.delete(served);
        await served.drain();
      },
    };
  }

  request<T = unknown>(
    subject: string,
    payload: unknown,
    options: Port.RequestOptions = {},
  ): Promise<T> {
    return sendRequest<T>(this.parts.nc, this.parts.namespace, subject, payload, options.timeoutMs);
  }

  replay(stream: StreamSpec, options: Port.ReplayOptions = {}): AsyncIterable<Port.StoredMessage> {
    return this.reader.read(stream, options);
  }

  deadLetters(filter?: Port.DeadLetterSelection): Promise<Port.DeadLetter[]> {
    return this.deadLetterStore.list(filter);
  }

  replayDeadLetters(selection: Port.DeadLetterSelection): Promise<Port.DeadLetterReplay[]> {
    return this.replayer.replay(selection);
  }

  async ping(): Promise<void> {
    try {
      await this.parts.nc.rtt();
      await this.parts.jsm.getAccountInfo();
    } catch (error) {
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `NATS JetStream is not answering: ${String(error)}`,
        { cause: error },
      );
    }
  }

  /** Stops taking work, waits for in-flight handlers and replies, then closes the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.consumers].map((s) => s.drain()));
    await Promise.all([...this.served].map((s) => s.drain()));
    this.consumers.clear();
    this.served.clear();
    if (!this.parts.nc.isClosed()) await this.parts.nc.drain();
  }

  /** Simulates a crash: drops the connection without settling or waiting for anything. */
  async abort(): Promise<void> {
    this.closed = true;
    for (const subscription of this.consumers) subscription.abandon();
    this.consumers.clear();
    this.served.clear();
    await this.parts.nc.close();
  }
}
