import { busPublished } from '@caravel/metrics';
import { randomUUID } from 'node:crypto';
import type { Consumable, Envelope, MessageDefinition, StreamSpec } from '@caravel/contracts';
import {
  BusConsumerRepository,
  BusDeadLetterRepository,
  BusDeliveryRepository,
  BusMessageRepository,
  LeaseRepository,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import type { z } from 'zod';
import type * as Port from '../bus.port.js';
import { hubFor, type BusHub } from './bus-hub.js';
import { quietConsoleLogger, resolveConsumerOptions, type BusLogger } from '../settlement/index.js';
import {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  namespaced,
  type EmbeddedBusOptions,
} from './embedded-bus.options.js';
import { EmbeddedConsumer } from './embedded-consumer.js';
import { EmbeddedLeaseStore } from './embedded-lease-store.js';
import { replayLog } from './embedded-replay.js';
import { filterToRegex, filterTokens, subjectMatches } from './subject-filter.js';

/** A durable consumer's stored stream, name and subject filter. */
interface DurableKey {
  stream: string;
  durable: string;
  subjectRegex: string;
}

interface Repositories {
  messages: BusMessageRepository;
  consumers: BusConsumerRepository;
  deliveries: BusDeliveryRepository;
  deadLetters: BusDeadLetterRepository;
}

/**
 * The in-process, durable adapter of the {@link Bus} port. Its log, consumer positions,
 * deliveries, dead letters and leases live in the database (PGlite on one machine, or
 * PostgreSQL), so a restart redelivers what was not acked and replay reads everything. Several
 * instances on one database share durable consumers the way JetStream replicas do.
 */
export class EmbeddedBus implements Port.Bus {
  readonly kind = 'embedded' as const;
  readonly leases: Port.LeaseStore;
  private readonly repos: Repositories;
  private readonly hub: BusHub;
  private readonly namespace: string;
  private readonly holder: string;
  private readonly logger: BusLogger;
  private readonly pollIntervalMs: number;
  private readonly consumers = new Set<{ abandon(): void }>();
  /** What each consumer of this bus reads from, for its backlog. */
  private readonly durables = new Map<object, DurableKey>();
  private readonly subscriptions = new Set<Port.Subscription>();

  constructor(private readonly options: EmbeddedBusOptions) {
    const db = options.database.db;
    this.repos = {
      messages: new BusMessageRepository(db, {
        appendsSerialised: options.appendsSerialised ?? options.database.kind === 'pglite',
      }),
      consumers: new BusConsumerRepository(db),
      deliveries: new BusDeliveryRepository(db),
      deadLetters: new BusDeadLetterRepository(db),
    };
    this.namespace = options.namespace ?? '';
    this.hub = hubFor(options.database, this.namespace);
    this.holder = `${options.name}:${randomUUID().slice(0, 8)}`;
    this.logger = options.logger ?? quietConsoleLogger;
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS[options.database.kind];
    this.leases = new EmbeddedLeaseStore(new LeaseRepository(db), this.namespace);
  }

  /** Checks each stream's subjects; the log needs no per-stream setup, so this is idempotent. */
  ensureStreams(streams: readonly StreamSpec[]): Promise<void> {
    return Promise.resolve().then(() => {
      for (const stream of streams) stream.subjects.forEach((subject) => filterTokens(subject));
    });
  }

  async publish<S extends z.ZodObject>(
    definition: MessageDefinition<S>,
    envelope: Envelope<z.output<S>>,
  ): Promise<Port.PublishAck> {
    const subject = subjectOf(definition, envelope);
    const storedStream = namespaced(this.namespace, definition.stream.name);
    const result = await this.repos.messages.append({
      stream: storedStream,
      subject,
      threadId: definition.threadScoped ? threadIdOf(envelope) : null,
      messageId: envelope.id,
      payload: JSON.stringify(envelope),
    });
    if (!result.duplicate) this.hub.announce(storedStream, subject);
    busPublished.inc({
      message: definition.pattern,
      outcome: result.duplicate ? 'duplicate' : 'stored',
    });
    return {
      stream: definition.stream.name,
      sequence: result.sequence,
      duplicate: result.duplicate,
    };
  }

  async consume<T>(
    definition: Consumable<T>,
    options: Port.ConsumerOptions,
    handler: Port.DeliveryHandler<T>,
  ): Promise<Port.Subscription> {
    const resolved = resolveConsumerOptions(options);
    const storedStream = namespaced(this.namespace, definition.stream.name);
    const filter = definition.filter();
    const consumer = new EmbeddedConsumer<T>({
      ...this.repos,
      definition,
      options: resolved,
      handler,
      storedStream,
      stream: definition.stream.name,
      subjectRegex: filterToRegex(filter),
      holder: this.holder,
      pollIntervalMs: this.pollIntervalMs,
      settled: () => this.hub.announceSettled(storedStream, resolved.durable),
      logger: this.logger,
    });
    // Listening before the registration reads the consumer's position: a publish committed
    // after that read is announced after it, so it wakes the consumer, whose first pull the
    // registration may have found needless.
    const unlisten = this.hub.onPublish(storedStream, (subject) => {
      if (subjectMatches(filter, subject)) consumer.wake();
    });
    const unlistenSettled = this.hub.onSettled(storedStream, resolved.durable, () =>
      consumer.wake(),
    );
    let startup: { idle: boolean };
    try {
      startup = await this.repos.consumers.register({
        stream: storedStream,
        durable: resolved.durable,
        filter,
        ordered: resolved.ordered,
        config: {
          ackWaitMs: resolved.ackWaitMs,
          maxDeliver: resolved.maxDeliver,
          backoffMs: resolved.backoffMs,
        },
      });
    } catch (error) {
      unlisten();
      unlistenSettled();
      throw error;
    }
    this.consumers.add(consumer);
    this.durables.set(consumer, {
      stream: storedStream,
      durable: resolved.durable,
      subjectRegex: filterToRegex(filter),
    });
    consumer.start(startup);
    return this.track({
      drain: async () => {
        unlisten();
        unlistenSettled();
        await consumer.drain();
        this.consumers.delete(consumer);
        this.durables.delete(consumer);
      },
    });
  }

  async backlog(): Promise<Port.ConsumerBacklog[]> {
    // Replicas of one durable on this bus share its figures: one of each.
    const unique = new Map(
      [...this.durables.values()].map((key) => [`${key.stream}/${key.durable}`, key]),
    );
    return Promise.all(
      [...unique.values()].map(async ({ stream, durable, subjectRegex }) => ({
        consumer: durable,
        ...(await this.repos.consumers.backlog(stream, durable, subjectRegex)),
      })),
    );
  }

  serve(
    subject: string,
    handler: Port.RequestHandler,
    options: { queue?: string } = {},
  ): Promise<Port.Subscription> {
    return Promise.resolve().then(() => {
      const served = this.hub.requests.serve(subject, handler, options.queue);
      return this.track({ drain: () => served.remove() });
    });
  }

  async request<T = unknown>(
    subject: string,
    payload: unknown,
    options: Port.RequestOptions = {},
  ): Promise<T> {
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    return (await this.hub.requests.request(subject, payload, timeoutMs)) as T;
  }

  replay(stream: StreamSpec, options?: Port.ReplayOptions): AsyncIterable<Port.StoredMessage> {
    const source = {
      messages: this.repos.messages,
      storedStream: namespaced(this.namespace, stream.name),
      stream: stream.name,
    };
    return replayLog(source, options);
  }

  deadLetters(filter: Port.DeadLetterSelection = {}): Promise<Port.DeadLetter[]> {
    const prefix = this.namespace ? namespaced(this.namespace, '') : undefined;
    return this.repos.deadLetters.list({
      ...filter,
      ...(prefix === undefined ? {} : { streamPrefix: prefix }),
    });
  }

  async replayDeadLetters(selection: Port.DeadLetterSelection): Promise<Port.DeadLetterReplay[]> {
    const replays: Port.DeadLetterReplay[] = [];
    for (const letter of await this.deadLetters(selection)) {
      if (letter.replayedAt !== null) {
        replays.push({ letter, outcome: 'already-replayed' });
        continue;
      }
      const storedStream = namespaced(this.namespace, letter.stream);
      const outcome = await this.repos.deadLetters.replay({
        stream: storedStream,
        durable: letter.consumer,
        sequence: letter.sequence,
      });
      // The consumer's local replicas look at once; others within their poll interval.
      if (outcome === 'replayed') this.hub.announceSettled(storedStream, letter.consumer);
      replays.push({ letter, outcome });
    }
    return replays;
  }

  async ping(): Promise<void> {
    await this.options.database.ping();
  }

  /** Stops consuming and serving after in-flight handlers settle. The database stays open. */
  async close(): Promise<void> {
    const subscriptions = [...this.subscriptions];
    this.subscriptions.clear();
    await Promise.all(subscriptions.map((subscription) => subscription.drain()));
  }

  /**
   * Stops at once without settling anything, as if the process had crashed: what this replica
   * held is redelivered elsewhere once its deadline passes. For tests and crash drills.
   */
  abandon(): void {
    for (const consumer of this.consumers) consumer.abandon();
    this.consumers.clear();
    void this.close();
  }

  private track(subscription: Port.Subscription): Port.Subscription {
    const tracked: Port.Subscription = {
      drain: async () => {
        this.subscriptions.delete(tracked);
        await subscription.drain();
      },
    };
    this.subscriptions.add(tracked);
    return tracked;
  }
}

/** Creates an embedded bus replica over an open database (whose migrations include the bus tables). */
export function createEmbeddedBus(options: EmbeddedBusOptions): EmbeddedBus {
  return new EmbeddedBus(options);
}

function subjectOf<S extends z.ZodObject>(
  definition: MessageDefinition<S>,
  envelope: Envelope<z.output<S>>,
): string {
  try {
    return definition.subjectFor(envelope.data);
  } catch (error) {
    throw new AppError('MESSAGE_MALFORMED', `cannot derive a subject for ${definition.type}`, {
      cause: error,
    });
  }
}

function threadIdOf(envelope: Envelope<unknown>): string | null {
  const data = envelope.data as { threadId?: unknown } | null;
  return typeof data?.threadId === 'string' ? data.threadId : null;
}
