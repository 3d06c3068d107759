import type { Consumer, ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import type {
  Admission,
  BusLogger,
  DependencyVerdict,
  OutageBreaker,
} from '../settlement/index.js';
import type { SlotLimiter } from './slot-limiter.js';

/** How long one pull request waits on the server for messages (the client's minimum is 1 s). */
const PULL_EXPIRES_MS = 5_000;
/** A probe's pull: short, so a durable with nothing to give hands the probe on soon. */
const PROBE_EXPIRES_MS = 1_000;
const RETRY_AFTER_ERROR_MS = 1_000;

export interface PullLoopOptions {
  consumer: Consumer;
  label: string;
  limiter: SlotLimiter;
  /**
   * Ordered partitions pull one message at a time (the durable allows one unacked message, so
   * the next pull waits on the server until it is settled, or redelivered after its ack wait);
   * shared durables reserve handler slots first and pull that many.
   */
  ordered: boolean;
  /** Settles one message; says what its handler found of the dependencies. */
  handle(message: JsMsg): Promise<DependencyVerdict>;
  /** Holds the pulls while an outage holds the consumer (shared by the subscription's loops). */
  breaker: OutageBreaker;
  logger: BusLogger;
}

/** Keeps pulling from one durable until stopped, surviving disconnects by retrying. */
export class PullLoop {
  private stopped = false;
  private current: ConsumerMessages | null = null;
  private finished: Promise<void> = Promise.resolve();

  constructor(private readonly options: PullLoopOptions) {}

  start(): void {
    this.finished = this.run();
  }

  /** Stops pulling; resolves once the loop has left (in-flight handlers are tracked elsewhere). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.current?.close().catch(() => undefined);
    await this.finished;
  }

  /** Stops without waiting for anything (the process is presumed dead). */
  abandon(): void {
    this.stopped = true;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        await (this.options.ordered ? this.pullOrdered() : this.pullShared());
      } catch (error) {
        if (this.stopped) break;
        this.options.logger.warn(`${this.options.label}: pull failed, retrying: ${String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_AFTER_ERROR_MS));
      }
    }
  }

  private async pullOrdered(): Promise<void> {
    const { consumer, limiter, breaker } = this.options;
    const admission = await breaker.admit();
    let received = 0;
    try {
      if (this.stopped) return;
      const expires = admission.probe ? PROBE_EXPIRES_MS : PULL_EXPIRES_MS;
      const batch = await consumer.fetch({ max_messages: 1, expires });
      this.current = batch;
      for await (const message of batch) {
        received += 1;
        await limiter.reserve(1);
        // Not awaited: a handler that never settles must not keep this replica from taking its
        // redelivery, which is how an ordered consumer gets past it (see ThreadParking).
        void this.dispatch(message, admission);
      }
    } finally {
      this.current = null;
      if (received === 0) breaker.record('unknown', admission);
    }
  }

  private async pullShared(): Promise<void> {
    const { consumer, limiter, breaker } = this.options;
    const admission = await breaker.admit();
    const reserved = await limiter.reserve(admission.probe ? 1 : limiter.capacity);
    let received = 0;
    try {
      if (this.stopped) return;
      const expires = admission.probe ? PROBE_EXPIRES_MS : PULL_EXPIRES_MS;
      const batch = await consumer.fetch({ max_messages: reserved, expires });
      this.current = batch;
      for await (const message of batch) {
        received += 1;
        void this.dispatch(message, admission);
      }
    } finally {
      this.current = null;
      limiter.release(reserved - received);
      if (received === 0) breaker.record('unknown', admission);
    }
  }

  /**
   * Runs one message's handling in its reserved slot and frees the slot however it ends; tells
   * the breaker what the handler found.
   */
  private async dispatch(message: JsMsg, admission: Admission): Promise<void> {
    let verdict: DependencyVerdict = 'unknown';
    try {
      verdict = await this.options.handle(message);
    } catch (error) {
      this.options.logger.error(
        `${this.options.label}: settling seq ${message.seq} failed: ${String(error)}`,
      );
    } finally {
      this.options.limiter.release(1);
      this.options.breaker.record(verdict, admission);
    }
  }
}
