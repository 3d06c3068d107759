import type { MessageDefinition } from '@caravel/contracts';
import type { JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import type { NatsConnection, Subscription as CoreSubscription } from '@nats-io/nats-core';
import type { z } from 'zod';
import type { ConsumerOptions, DeliveryHandler, Subscription } from '../bus.port.js';
import {
  backoffDelay,
  resolveConsumerOptions,
  runDelivery,
  type BusLogger,
  type ResolvedConsumerOptions,
  type SettlementDecision,
} from '../settlement/index.js';
import { applyDurable, planDurables, type DurablePlan } from './consumer-setup.js';
import type { DeadLetterFacts, DeadLetterStore } from './dead-letter-store.js';
import type { Namespace } from './namespace.js';
import { ParkedRunner } from './parked-runner.js';
import { ParkedThreads } from './parked-threads.js';
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

interface AdvisoryBody {
  stream_seq?: number;
  deliveries?: number;
}

const NEVER_SETTLED = 'the handler never settled within the ack deadline';

/** `thread.<threadId>.…`: the thread a thread-scoped subject belongs to. */
function threadOf(subject: string): string {
  return subject.split('.')[1] ?? '';
}

/**
 * One `consume()` call: the durables behind it, a pull loop per durable, and the max-deliveries
 * advisory listeners that dead-letter messages whose handlers never settled in time. An ordered
 * one also parks a thread whose oldest message fails (see {@link ThreadParking}) and retries it
 * beside the partitions, so one failing thread does not hold up the rest of its partition.
 */
export class JetStreamSubscription<S extends z.ZodObject> implements Subscription {
  private readonly loops: PullLoop[] = [];
  private readonly advisories: CoreSubscription[] = [];
  private readonly limiter: SlotLimiter;
  private readonly options: ResolvedConsumerOptions;
  private readonly stream: string;
  private parked: { parking: ThreadParking; runner: ParkedRunner } | null = null;

  constructor(
    private readonly deps: SubscriptionDeps,
    private readonly definition: MessageDefinition<S>,
    options: ConsumerOptions,
    private readonly handler: DeliveryHandler<z.output<S>>,
  ) {
    this.options = resolveConsumerOptions(options);
    this.limiter = new SlotLimiter(this.options.concurrency);
    this.stream = deps.namespace.streamName(definition.stream);
  }

  async start(): Promise<void> {
    const plans = planDurables(this.definition, this.options, this.deps.namespace);
    await Promise.all(plans.map((plan) => applyDurable(this.deps.jsm, this.stream, plan)));
    if (this.options.ordered && this.definition.threadScoped) await this.startParking();
    for (const plan of plans) {
      this.listenForMaxDeliveries(plan);
      const consumer = await this.deps.js.consumers.get(this.stream, plan.name);
      const loop = new PullLoop({
        consumer,
        label: `${this.stream}/${plan.name}`,
        limiter: this.limiter,
        ordered: this.options.ordered,
        handle: (message) => this.handle(message),
        logger: this.deps.logger,
      });
      loop.start();
      this.loops.push(loop);
    }
    await this.deps.nc.flush();
  }

  async drain(): Promise<void> {
    await Promise.all(this.loops.map((loop) => loop.stop()));
    await this.parked?.runner.stop();
    await this.limiter.idle();
    await Promise.all(this.advisories.map((sub) => sub.drain().catch(() => undefined)));
  }

  /** Drops everything without settling (a simulated crash). */
  abandon(): void {
    for (const loop of this.loops) loop.abandon();
    void this.parked?.runner.stop();
  }

  private async startParking(): Promise<void> {
    const { nc, namespace, holder, logger } = this.deps;
    const scope = `${this.definition.stream.name}.${this.options.durable}`;
    const store = new ParkedThreads(nc, namespace.parkingBucket(), scope);
    await store.ensure();
    const parking = new ThreadParking(store, holder, this.options);
    const runner = new ParkedRunner({
      store,
      parking,
      limiter: this.limiter,
      label: `${this.stream}/${this.options.durable} parked`,
      logger,
      run: (attempt) => this.runParked(parking, attempt),
    });
    this.parked = { parking, runner };
    runner.start();
  }

  private async handle(message: JsMsg): Promise<void> {
    if (this.parked) {
      await this.handleInPartition(message, this.parked.parking);
      return;
    }
    await this.settle(message, await this.run(message));
  }

  private run(message: JsMsg): Promise<SettlementDecision> {
    const raw = {
      payload: message.string(),
      subject: this.deps.namespace.logicalSubject(message.subject),
      stream: this.definition.stream.name,
      sequence: message.seq,
      deliveryCount: message.info.deliveryCount,
      working: () => {
        message.working();
        return Promise.resolve();
      },
    };
    return runDelivery(this.definition, raw, this.handler, this.options);
  }

  /**
   * An ordered partition's message. A parked thread's message joins the thread's record and
   * leaves the partition; one whose earlier delivery never settled is parked without running
   * here; one that fails retryably parks its thread. Only success and giving up settle here.
   */
  private async handleInPartition(message: JsMsg, parking: ThreadParking): Promise<void> {
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
        return;
      }
    } catch (error) {
      this.deps.logger.warn(
        `${this.stream}: could not check parked thread ${threadId}, retrying seq ${message.seq}: ${String(error)}`,
      );
      message.nak(backoffDelay(this.options.backoffMs, deliveryCount));
      return;
    }
    const decision = await this.run(message);
    if (decision.action !== 'nak') {
      await this.settle(message, decision);
      return;
    }
    try {
      await parking.park(threadId, message.seq, deliveryCount, Date.now() + decision.delayMs);
      await message.ackAck();
    } catch (error) {
      this.deps.logger.warn(
        `${this.stream}: could not park thread ${threadId}, seq ${message.seq} holds its partition: ${String(error)}`,
      );
      message.nak(decision.delayMs);
    }
  }

  /** One attempt at a parked thread's first message, read back from the stream by sequence. */
  private async runParked(parking: ThreadParking, attempt: ParkedAttempt): Promise<void> {
    const stored = await this.deps.jsm.streams.getMessage(this.stream, { seq: attempt.sequence });
    if (!stored) {
      this.deps.logger.warn(
        `${this.stream}: parked seq ${attempt.sequence} is no longer in the stream; skipping it`,
      );
      await parking.finish(attempt);
      return;
    }
    const facts = {
      stream: this.definition.stream.name,
      consumer: this.options.durable,
      sequence: attempt.sequence,
      subject: this.deps.namespace.logicalSubject(stored.subject),
      deliveries: attempt.deliveryCount,
      payload: stored.string(),
    };
    const decision: SettlementDecision = attempt.exhausted
      ? {
          action: 'term',
          reason: `max deliveries reached (${attempt.deliveryCount}/${this.options.maxDeliver}): ${NEVER_SETTLED}`,
        }
      : await runDelivery(
          this.definition,
          {
            payload: facts.payload,
            subject: facts.subject,
            stream: facts.stream,
            sequence: facts.sequence,
            deliveryCount: attempt.deliveryCount,
            working: () => parking.extend(attempt),
          },
          this.handler,
          this.options,
        );
    switch (decision.action) {
      case 'ack':
        await parking.finish(attempt);
        return;
      case 'nak':
        await parking.retryLater(attempt, decision.delayMs);
        return;
      case 'term':
        if (await this.recordDeadLetter({ ...facts, reason: decision.reason })) {
          await parking.finish(attempt);
        } else {
          await parking.retryLater(attempt, backoffDelay(this.options.backoffMs, facts.deliveries));
        }
        return;
    }
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
        await this.termWithRecord(message, decision.reason);
        return;
    }
  }

  /** Records the dead letter first: if that fails, the message is retried rather than lost. */
  private async termWithRecord(message: JsMsg, reason: string): Promise<void> {
    const recorded = await this.recordDeadLetter({
      stream: this.definition.stream.name,
      consumer: this.options.durable,
      sequence: message.seq,
      subject: this.deps.namespace.logicalSubject(message.subject),
      deliveries: message.info.deliveryCount,
      reason,
      payload: message.string(),
    });
    if (!recorded) {
      message.nak(backoffDelay(this.options.backoffMs, message.info.deliveryCount));
      return;
    }
    // 2.9 ignores a reason passed to term() (and then redelivers), so the reason lives in the record.
    message.term();
  }

  /** False (and logged) when the record could not be written: the caller retries the message. */
  private async recordDeadLetter(facts: DeadLetterFacts): Promise<boolean> {
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

  private listenForMaxDeliveries(plan: DurablePlan): void {
    const subject = `$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.${this.stream}.${plan.name}`;
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

  private async recordExhausted(advisory: AdvisoryBody): Promise<void> {
    const sequence = advisory.stream_seq;
    if (sequence === undefined) return;
    const original = await this.deps.jsm.streams.getMessage(this.stream, { seq: sequence });
    if (!original) return;
    const deliveries = advisory.deliveries ?? this.options.maxDeliver;
    await this.deps.deadLetters.record({
      stream: this.definition.stream.name,
      consumer: this.options.durable,
      sequence,
      subject: this.deps.namespace.logicalSubject(original.subject),
      deliveries,
      reason: `max deliveries reached (${deliveries}/${this.options.maxDeliver}): ${NEVER_SETTLED}`,
      payload: original.string(),
    });
  }
}
