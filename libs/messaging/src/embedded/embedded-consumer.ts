import type { Consumable } from '@caravel/contracts';
import type {
  BusConsumerRepository,
  BusDeliveryRepository,
  ClaimedDelivery,
  DeliveryKey,
} from '@caravel/db';
import type { DeliveryHandler, Subscription } from '../bus.port.js';
import {
  describeFailure,
  OutageBreaker,
  type Admission,
  outageDelay,
  runDelivery,
  type BusLogger,
  type ResolvedConsumerOptions,
  type SettlementDecision,
} from '../settlement/index.js';
import { WakeSignal } from './wake-signal.js';

export interface EmbeddedConsumerDeps<T> {
  deliveries: BusDeliveryRepository;
  consumers: BusConsumerRepository;
  definition: Consumable<T>;
  options: ResolvedConsumerOptions;
  handler: DeliveryHandler<T>;
  /** The stream's stored name (namespaced) and its name as callers know it. */
  storedStream: string;
  stream: string;
  subjectRegex: string;
  holder: string;
  /** The longest an idle loop sleeps (it wakes earlier when told, or when a timer falls due). */
  pollIntervalMs: number;
  /** Tells the other local replicas of this durable that a delivery was settled. */
  settled: () => void;
  logger: BusLogger;
}

const FILL_BATCH = 500;
const MIN_SLEEP_MS = 5;
const MAX_UNSETTLED = 5000;

/**
 * One replica's share of a durable consumer: a loop that fills the consumer's pending set from
 * the log, claims what this replica has room for, runs the handler and settles the outcome.
 * Idle, it sleeps until something wakes it — a local publish to its stream, a local settlement
 * of its durable — or until the next of its deliveries falls due (a nak's delay, an attempt's
 * deadline), and at most `pollIntervalMs` (what another process did). An idle process does no
 * work at all between those.
 */
export class EmbeddedConsumer<T> implements Subscription {
  private readonly signal = new WakeSignal();
  private readonly running = new Set<Promise<void>>();
  private readonly breaker: OutageBreaker;
  private stopping = false;
  /** Aborted when the consumer is drained: its handlers' `stopping` (a crash aborts nothing). */
  private readonly draining = new AbortController();
  private abandoned = false;
  private loop: Promise<void> = Promise.resolve();
  /** When (`performance.now()`) the last claim began: the idle wait looks back to it. */
  private claimedAt = 0;

  constructor(private readonly deps: EmbeddedConsumerDeps<T>) {
    this.breaker = new OutageBreaker({
      delayMs: (failures) => outageDelay(deps.options, failures),
      probeTimeoutMs: deps.options.ackWaitMs,
      label: `bus consumer ${deps.options.durable}`,
      logger: deps.logger,
    });
  }

  /**
   * Starts the loop. `idle`: the registration found nothing to fill or settle, so the loop
   * sleeps until woken (or a poll) instead of pulling first.
   */
  start(startup: { idle: boolean } = { idle: false }): void {
    this.loop = this.run(startup.idle);
  }

  /** Something changed (a publish, a settlement): look for work now rather than at the next poll. */
  wake(): void {
    this.signal.notify();
  }

  async drain(): Promise<void> {
    this.stopping = true;
    this.draining.abort();
    this.breaker.stop();
    this.signal.notify();
    await this.loop;
    await Promise.allSettled([...this.running]);
  }

  /** Stops at once without settling anything, as a crashed process would. */
  abandon(): void {
    this.abandoned = true;
    this.stopping = true;
    this.breaker.stop();
    this.signal.notify();
  }

  private async run(idle: boolean): Promise<void> {
    if (idle) await this.signal.wait(this.deps.pollIntervalMs);
    while (!this.stopping) {
      let claimed = 0;
      try {
        claimed = await this.pull();
      } catch (error) {
        this.deps.logger.warn(
          `bus consumer ${this.deps.options.durable} could not pull: ${describeFailure(error)}`,
        );
      }
      if (this.stopping) return;
      if (claimed === 0 || this.room() === 0) await this.signal.wait(await this.idleMs());
    }
  }

  /**
   * How long to sleep when there is nothing to claim: until the next timer, at most the poll. The
   * timers are read after the claim, looking back to when it began: a delivery that became
   * visible in between was not visible to the claim and is no longer in the future, so without
   * the look-back it was neither claimed nor a timer, and waited for the poll — which an outage's
   * probe, due a few ms before the nak'd message it should take, made common.
   */
  private async idleMs(): Promise<number> {
    const { deliveries, storedStream, options, pollIntervalMs } = this.deps;
    if (this.room() === 0) return pollIntervalMs;
    try {
      const lookBack = performance.now() - this.claimedAt;
      const due = await deliveries.msUntilDue(storedStream, options.durable, lookBack);
      // A few ms at least: what fell due is claimed on the next pass, never spun on.
      return due === null ? pollIntervalMs : Math.min(pollIntervalMs, Math.max(due, MIN_SLEEP_MS));
    } catch {
      return pollIntervalMs;
    }
  }

  private room(): number {
    return Math.max(0, this.deps.options.concurrency - this.running.size);
  }

  private async pull(): Promise<number> {
    const { deliveries, consumers, options, storedStream, subjectRegex } = this.deps;
    if (this.room() === 0) return 0;
    const reason = `max deliveries reached (${options.maxDeliver}/${options.maxDeliver}): the handler never settled within the ack deadline`;
    await deliveries.expireExhausted(storedStream, options.durable, options.maxDeliver, reason);
    await consumers.fill(storedStream, options.durable, {
      subjectRegex,
      batch: FILL_BATCH,
      maxUnsettled: MAX_UNSETTLED,
    });
    // While an outage holds the consumer, it claims nothing until its probe is due, then one.
    const admission = await this.breaker.admit();
    let claimed: ClaimedDelivery[] = [];
    try {
      if (this.stopping) return 0;
      this.claimedAt = performance.now();
      claimed = await deliveries.claim({
        stream: storedStream,
        durable: options.durable,
        holder: this.deps.holder,
        limit: admission.probe ? 1 : this.room(),
        ackWaitMs: options.ackWaitMs,
        maxDeliver: options.maxDeliver,
        ordered: options.ordered,
      });
    } finally {
      if (claimed.length === 0) this.breaker.record('unknown', admission);
    }
    for (const delivery of claimed) this.track(this.handle(delivery, admission));
    return claimed.length;
  }

  private track(work: Promise<void>): void {
    const tracked = work
      .catch((error: unknown) => {
        this.deps.logger.error(
          `bus consumer ${this.deps.options.durable} failed to settle: ${describeFailure(error)}`,
        );
      })
      .finally(() => {
        this.running.delete(tracked);
        this.signal.notify();
        this.deps.settled();
      });
    this.running.add(tracked);
  }

  private async handle(claimed: ClaimedDelivery, admission: Admission): Promise<void> {
    const { deliveries, options } = this.deps;
    const key: DeliveryKey = {
      stream: this.deps.storedStream,
      durable: options.durable,
      sequence: claimed.sequence,
    };
    const raw = {
      payload: claimed.payload,
      subject: claimed.subject,
      stream: this.deps.stream,
      sequence: claimed.sequence,
      deliveryCount: claimed.deliveryCount,
      outages: claimed.outages,
      storedAt: claimed.storedAt,
      working: async (): Promise<void> => {
        if (!this.abandoned) await deliveries.extend(key, claimed.deliveryCount, options.ackWaitMs);
      },
      stopping: this.draining.signal,
    };
    const result = await runDelivery(this.deps.definition, raw, this.deps.handler, options);
    if (this.abandoned) return;
    this.breaker.record(result.dependency, admission);
    await this.settle(key, claimed.deliveryCount, result.decision);
  }

  private async settle(
    key: DeliveryKey,
    attempt: number,
    decision: SettlementDecision,
  ): Promise<void> {
    switch (decision.action) {
      case 'ack':
        await this.deps.deliveries.ack(key);
        return;
      case 'nak':
        await this.deps.deliveries.nak(key, attempt, decision.delayMs, decision.outage);
        return;
      case 'term':
        if (await this.deps.deliveries.deadLetter(key, attempt, decision.reason)) {
          this.deps.logger.warn(
            `dead-lettered ${key.stream}#${key.sequence} for ${key.durable}: ${decision.reason}`,
          );
        }
        return;
    }
  }
}
