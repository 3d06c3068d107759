import type { Consumable } from '@caravel/contracts';
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/nats-core';
import type {
  ConsumerBacklog,
  ConsumerOptions,
  DeliveryHandler,
  Subscription,
} from '../bus.port.js';
import {
  backoffDelay,
  OutageBreaker,
  outageDelay,
  resolveConsumerOptions,
  runDelivery,
  type BusLogger,
  type DeliveryResult,
  type DependencyVerdict,
  type ResolvedConsumerOptions,
  type SettlementDecision,
} from '../settlement/index.js';
import { applyDurable, planDurables } from './consumer-setup.js';
import { durablesBacklog } from './consumer-backlog.js';
import { ConsumerDeadLetters, NEVER_SETTLED } from './consumer-dead-letters.js';
import type { DeadLetterStore } from './dead-letter-store.js';
import type { Namespace } from './namespace.js';
import { ParkedRunner } from './parked-runner.js';
import { parkedMessageKey, ParkedThreads, threadOf } from './parked-threads.js';
import { PullLoop } from './pull-loop.js';
import { SlotLimiter } from './slot-limiter.js';
import { ThreadParking, type ParkedAttempt } from './thread-parking.js';

export interface SubscriptionDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  namespace: Namespace;
  deadLetters: DeadLetterStore;
  logger: BusLogger;
  /** This replica's name on parked-thread claims (unique per bus instance). */
  holder: string;
}

/**
 * One `consume()` call: the durables behind it, a pull loop per durable, and the max-deliveries
 * advisory listeners that dead-letter messages whose handlers never settled in time. A message
 * that fails is parked (see {@link ThreadParking}) and retried beside the pulls: an ordered one
 * on any retryable failure, so one failing thread does not hold up the rest of its partition; a
 * shared one on an outage, so the outage's retries leave the server's count of deliveries. An
 * outage also pauses the pulls until a probe finds the dependency back ({@link OutageBreaker}).
 */
export class JetStreamSubscription<T> implements Subscription {
  private readonly loops: PullLoop[] = [];
  private readonly deadLetters: ConsumerDeadLetters;
  private readonly limiter: SlotLimiter;
  private readonly breaker: OutageBreaker;
  private readonly options: ResolvedConsumerOptions;
  private readonly stream: string;
  private readonly partitioned: boolean;
  private parked: { parking: ThreadParking; runner: ParkedRunner } | null = null;
  private durables: string[] = [];
  /** Aborted when the subscription is drained: its handlers' `stopping` (a crash aborts nothing). */
  private readonly draining = new AbortController();

  constructor(
    private readonly deps: SubscriptionDeps,
    private readonly definition: Consumable<T>,
    options: ConsumerOptions,
    private readonly handler: DeliveryHandler<T>,
  ) {
    this.options = resolveConsumerOptions(options);
    this.limiter = new SlotLimiter(this.options.concurrency);
    this.stream = deps.namespace.streamName(definition.stream);
    this.partitioned = this.options.ordered && definition.threadScoped;
    this.breaker = new OutageBreaker({
      delayMs: (failures) => outageDelay(this.options, failures),
      probeTimeoutMs: this.options.ackWaitMs,
      label: `${this.stream}/${this.options.durable}`,
      logger: deps.logger,
    });
    this.deadLetters = new ConsumerDeadLetters({
      ...deps,
      stream: this.stream,
      logicalStream: definition.stream.name,
      options: this.options,
    });
  }

  async start(): Promise<void> {
    const plans = planDurables(this.definition, this.options, this.deps.namespace);
    this.durables = plans.map((plan) => plan.name);
    await Promise.all(plans.map((plan) => applyDurable(this.deps.jsm, this.stream, plan)));
    const parking = await this.startParking();
    for (const plan of plans) {
      this.deadLetters.listen(plan.name);
      const consumer = await this.deps.js.consumers.get(this.stream, plan.name);
      const loop = new PullLoop({
        consumer,
        label: `${this.stream}/${plan.name}`,
        limiter: this.limiter,
        breaker: this.breaker,
        ordered: this.options.ordered,
        handle: (message) =>
          this.partitioned
            ? this.handleInPartition(message, parking)
            : this.handleShared(message, parking),
        logger: this.deps.logger,
      });
      loop.start();
      this.loops.push(loop);
    }
    await this.deps.nc.flush();
  }

  /** The logical durable name (its partitions' durables share it). */
  get durable(): string {
    return this.options.durable;
  }

  /** The durable's backlog on the server, across every replica that shares it. */
  backlog(): Promise<ConsumerBacklog> {
    const { jsm } = this.deps;
    return durablesBacklog(jsm, this.stream, this.options.durable, this.durables);
  }

  async drain(): Promise<void> {
    this.draining.abort();
    this.breaker.stop();
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await this.parked?.runner.stop();
    await this.limiter.idle();
    await this.deadLetters.drain();
  }

  /** Drops everything without settling (a simulated crash). */
  abandon(): void {
    this.breaker.stop();
    for (const loop of this.loops) loop.abandon();
    void this.parked?.runner.stop();
  }

  private async startParking(): Promise<ThreadParking> {
    const { nc, namespace, holder, logger } = this.deps;
    const scope = `${this.definition.stream.name}.${this.options.durable}`;
    const store = new ParkedThreads(nc, namespace.parkingBucket(), scope);
    await store.ensure();
    const parking = new ThreadParking(store, holder, this.options);
    const runner = new ParkedRunner({
      store,
      parking,
      limiter: this.limiter,
      breaker: this.breaker,
      label: `${this.stream}/${this.options.durable} parked`,
      logger,
      run: (attempt) => this.runParked(parking, attempt),
    });
    this.parked = { parking, runner };
    runner.start();
    return parking;
  }

  private run(message: JsMsg): Promise<DeliveryResult> {
    const raw = {
      payload: message.string(),
      subject: this.deps.namespace.logicalSubject(message.subject),
      stream: this.definition.stream.name,
      sequence: message.seq,
      deliveryCount: message.info.deliveryCount,
      // Outage failures are parked, never nak'd to the server: its count holds none of them.
      outages: 0,
      storedAt: message.time,
      working: () => {
        message.working();
        return Promise.resolve();
      },
      stopping: this.draining.signal,
    };
    return runDelivery(this.definition, raw, this.handler, this.options);
  }

  /**
   * A shared consumer's message. An outage failure parks it on its own and acks it here, so
   * its retries are not deliveries the server counts towards `max_deliver`; anything else
   * settles here.
   */
  private async handleShared(message: JsMsg, parking: ThreadParking): Promise<DependencyVerdict> {
    const { decision, dependency } = await this.run(message);
    if (decision.action !== 'nak' || !decision.outage) {
      await this.settle(message, decision);
      return dependency;
    }
    const { deliveryCount } = message.info;
    const dueAt = Date.now() + decision.delayMs;
    await this.parkOrNak(message, decision.delayMs, () =>
      parking.park(parkedMessageKey(message.seq), message.seq, deliveryCount, dueAt, 1),
    );
    return dependency;
  }

  /**
   * An ordered partition's message. A parked thread's message joins the thread's record and
   * leaves the partition; one whose earlier delivery never settled is parked without running
   * here; one that fails retryably parks its thread. Only success and giving up settle here.
   */
  private async handleInPartition(
    message: JsMsg,
    parking: ThreadParking,
  ): Promise<DependencyVerdict> {
    const threadId = threadOf(this.deps.namespace.logicalSubject(message.subject));
    const { deliveryCount } = message.info;
    try {
      let setAside = await parking.joinIfParked(threadId, message.seq);
      if (!setAside && deliveryCount > 1) {
        await parking.park(threadId, message.seq, deliveryCount - 1, Date.now());
        setAside = true;
      }
      if (setAside) {
        await message.ackAck();
        return 'unknown';
      }
    } catch (error) {
      this.deps.logger.warn(
        `${this.stream}: could not check parked thread ${threadId}, retrying seq ${message.seq}: ${String(error)}`,
      );
      message.nak(backoffDelay(this.options.backoffMs, deliveryCount));
      return 'unknown';
    }
    const { decision, dependency } = await this.run(message);
    if (decision.action !== 'nak') {
      await this.settle(message, decision);
      return dependency;
    }
    const dueAt = Date.now() + decision.delayMs;
    const outages = decision.outage ? 1 : 0;
    await this.parkOrNak(message, decision.delayMs, () =>
      parking.park(threadId, message.seq, deliveryCount, dueAt, outages),
    );
    return dependency;
  }

  /** Parks, then acks; if the bucket cannot be written, the message is nak'd and holds its place. */
  private async parkOrNak(message: JsMsg, delayMs: number, park: () => Promise<void>) {
    try {
      await park();
      await message.ackAck();
    } catch (error) {
      this.deps.logger.warn(
        `${this.stream}: could not park seq ${message.seq}, nak'd instead: ${String(error)}`,
      );
      message.nak(delayMs);
    }
  }

  /** One attempt at a parked thread's first message, read back from the stream by sequence. */
  private async runParked(
    parking: ThreadParking,
    attempt: ParkedAttempt,
  ): Promise<DependencyVerdict> {
    const stored = await this.deps.jsm.streams.getMessage(this.stream, { seq: attempt.sequence });
    if (!stored) {
      this.deps.logger.warn(
        `${this.stream}: parked seq ${attempt.sequence} is no longer in the stream; skipping it`,
      );
      await parking.finish(attempt);
      return 'unknown';
    }
    const facts = {
      stream: this.definition.stream.name,
      consumer: this.options.durable,
      sequence: attempt.sequence,
      subject: this.deps.namespace.logicalSubject(stored.subject),
      deliveries: attempt.deliveryCount,
      payload: stored.string(),
    };
    const { decision, dependency }: DeliveryResult = attempt.exhausted
      ? {
          decision: {
            action: 'term',
            reason: `max deliveries reached (${attempt.deliveryCount - attempt.outages}/${this.options.maxDeliver}): ${NEVER_SETTLED}`,
          },
          dependency: 'unknown',
        }
      : await runDelivery(
          this.definition,
          {
            payload: facts.payload,
            subject: facts.subject,
            stream: facts.stream,
            sequence: facts.sequence,
            deliveryCount: attempt.deliveryCount,
            outages: attempt.outages,
            storedAt: stored.time,
            working: () => parking.extend(attempt),
            stopping: this.draining.signal,
          },
          this.handler,
          this.options,
        );
    switch (decision.action) {
      case 'ack':
        await parking.finish(attempt);
        break;
      case 'nak':
        await parking.retryLater(attempt, decision.delayMs, decision.outage);
        break;
      case 'term':
        if (await this.deadLetters.record({ ...facts, reason: decision.reason })) {
          await parking.finish(attempt);
        } else {
          await parking.retryLater(attempt, backoffDelay(this.options.backoffMs, facts.deliveries));
        }
        break;
    }
    return dependency;
  }

  private async settle(message: JsMsg, decision: SettlementDecision): Promise<void> {
    switch (decision.action) {
      case 'ack':
        await message.ackAck();
        return;
      case 'nak':
        message.nak(decision.delayMs);
        return;
      case 'term':
        await this.deadLetters.termWithRecord(message, decision.reason);
        return;
    }
  }
}
