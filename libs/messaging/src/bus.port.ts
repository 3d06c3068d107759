import type { Consumable, Envelope, MessageDefinition, StreamSpec } from '@caravel/contracts';
import type { DeadLetter, DeadLetterSelection } from '@caravel/db';
import type { z } from 'zod';

/** What the broker said about a publish. `duplicate` is true when the message id was seen before. */
export interface PublishAck {
  stream: string;
  sequence: number;
  duplicate: boolean;
}

/** One delivery of a stored message to a consumer. */
export interface Delivery<TData = unknown> {
  readonly envelope: Envelope<TData>;
  readonly subject: string;
  readonly stream: string;
  readonly sequence: number;
  /** 1 on the first delivery. */
  readonly deliveryCount: number;
  /** Extends the ack deadline (JetStream `+WPI`): call it from long handlers. */
  working(): Promise<void>;
  /**
   * Aborted when this replica's consumer begins to stop (a shutdown drains it). A long handler
   * stops at a safe point and throws a retryable error: the message is handed back, not settled
   * as done, and another replica (or this service once it is back) takes it.
   */
  readonly stopping: AbortSignal;
}

/** A message as it sits in a stream, for replay. */
export interface StoredMessage {
  stream: string;
  sequence: number;
  subject: string;
  storedAt: Date;
  envelope: Envelope;
}

export interface ConsumerOptions {
  /** Durable name; replicas that use the same name share the work. */
  durable: string;
  /**
   * When true, messages of one thread are handled one at a time in publish order across every
   * replica, while other threads proceed in parallel.
   */
  ordered?: boolean;
  /** How long a delivery may go without ack or `working()` before it is redelivered. */
  ackWaitMs?: number;
  /** Deliveries before a message is dead-lettered (default 5). */
  maxDeliver?: number;
  /** Delays for successive naks; the last repeats. Default 1 s, 5 s, 30 s, 2 min. */
  backoffMs?: readonly number[];
  /** Handlers running at once in this replica (default 8). */
  concurrency?: number;
  /**
   * How long an outage (`DEPENDENCY_UNAVAILABLE`) may keep a message, counted from when it was
   * stored, before it is dead-lettered after all (default 24 h). Outage failures do not count
   * against `maxDeliver`.
   */
  outageHorizonMs?: number;
  /**
   * The longest wait before an outage failure is tried again, and between the consumer's probes
   * while it is paused by an outage (default 30 s).
   */
  outageMaxDelayMs?: number;
}

/** The handler's view: it returns normally or throws; settlement is the library's job. */
export type DeliveryHandler<TData> = (delivery: Delivery<TData>) => Promise<void>;

/**
 * How far behind one durable consumer is: messages stored that its handlers have not taken yet
 * (`waiting`, including those waiting out a nak's delay) and messages handed out and not settled
 * (`inHandlers`). Counted across every replica of the durable, as the store sees it.
 */
export interface ConsumerBacklog {
  consumer: string;
  waiting: number;
  inHandlers: number;
}

export interface Subscription {
  /**
   * Stops taking new deliveries, aborts the in-flight handlers' {@link Delivery.stopping} and
   * waits for them to settle.
   */
  drain(): Promise<void>;
}

/** A dead-letter record, as {@link Bus.deadLetters} lists them (one shape for every adapter). */
export type { DeadLetter, DeadLetterSelection } from '@caravel/db';

/** What {@link Bus.replayDeadLetters} did with one dead letter. */
export interface DeadLetterReplay {
  letter: DeadLetter;
  /**
   * `replayed`: handed back to its consumer now; `already-replayed`: it was before, so nothing
   * was done; `expired`: its message is no longer in the stream (past the stream's max age).
   */
  outcome: 'replayed' | 'already-replayed' | 'expired';
}

export interface ReplayOptions {
  /** Narrow to one thread's messages. */
  threadId?: string;
  /** A NATS subject filter; default: the whole stream (or the thread's part of it). */
  filter?: string;
  fromSequence?: number;
  fromTime?: Date;
}

export interface Lease {
  key: string;
  holder: string;
  revision: number;
  expiresAt: Date;
}

/** Per-key leases with compare-and-set and expiry (e.g. one active run per thread). */
export interface LeaseStore {
  /** Takes the lease when free or expired; `null` when someone else holds it. */
  acquire(key: string, holder: string, ttlMs: number): Promise<Lease | null>;
  /** Extends a held lease; fails (null) when `revision` is stale or the lease was lost. */
  renew(lease: Lease, ttlMs: number): Promise<Lease | null>;
  /** Releases a held lease; false when `revision` is stale. */
  release(lease: Lease): Promise<boolean>;
  get(key: string): Promise<Lease | null>;
}

export interface RequestOptions {
  timeoutMs?: number;
}

/**
 * Serves one request. `headers` are the request's trace headers (`traceparent`,
 * `Caravel-Correlation-Id`), which the requesting bus sets from the handler it runs in.
 */
export type RequestHandler = (
  request: unknown,
  subject: string,
  headers: Readonly<Record<string, string>>,
) => Promise<unknown>;

/**
 * The message bus port. Two adapters implement it and pass one behaviour suite: JetStream (NATS)
 * and embedded (in-process, durable in the embedded database).
 */
export interface Bus {
  readonly kind: 'jetstream' | 'embedded';
  /** Creates streams and supporting state; idempotent. */
  ensureStreams(streams: readonly StreamSpec[]): Promise<void>;
  publish<S extends z.ZodObject>(
    definition: MessageDefinition<S>,
    envelope: Envelope<z.output<S>>,
  ): Promise<PublishAck>;
  /** Takes one message, or a family of them in their order per thread, through a durable. */
  consume<T>(
    definition: Consumable<T>,
    options: ConsumerOptions,
    handler: DeliveryHandler<T>,
  ): Promise<Subscription>;
  /** Serves request/reply on a subject (wildcards allowed); replies are not durable. */
  serve(
    subject: string,
    handler: RequestHandler,
    options?: { queue?: string },
  ): Promise<Subscription>;
  /** Sends a request; rejects with `TIMEOUT` when nobody answers in time. */
  request<T = unknown>(subject: string, payload: unknown, options?: RequestOptions): Promise<T>;
  replay(stream: StreamSpec, options?: ReplayOptions): AsyncIterable<StoredMessage>;
  /** Dead letters, oldest first, narrowed by consumer, ids and time recorded. */
  deadLetters(filter?: DeadLetterSelection): Promise<DeadLetter[]>;
  /**
   * Hands the selected dead letters back to the consumers that gave up on them: each message is
   * delivered to that consumer again (and to no other), with a fresh count of deliveries, and
   * the letter is marked replayed, so replaying it again does nothing. The message keeps its
   * envelope id, so a handler that did handle it after all drops it as a duplicate.
   */
  replayDeadLetters(selection: DeadLetterSelection): Promise<DeadLetterReplay[]>;
  readonly leases: LeaseStore;
  /** The backlog of each durable consumer this bus has opened (for `/metrics`), by durable name. */
  backlog(): Promise<ConsumerBacklog[]>;
  /** Health for readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
