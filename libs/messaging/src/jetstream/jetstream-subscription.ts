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
import type { DeadLetterStore } from './dead-letter-store.js';
import type { Namespace } from './namespace.js';
import { PullLoop } from './pull-loop.js';
import { SlotLimiter } from './slot-limiter.js';

export interface SubscriptionDeps {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  namespace: Namespace;
  deadLetters: DeadLetterStore;
  logger: BusLogger;
}

interface AdvisoryBody {
  stream_seq?: number;
  deliveries?: number;
}

/**
 * One `consume()` call: the durables behind it, a pull loop per durable, and the max-deliveries
 * advisory listeners that dead-letter messages whose handlers never settled in time.
 */
export class JetStreamSubscription<S extends z.ZodObject> implements Subscription {
  private readonly loops: PullLoop[] = [];
  private readonly advisories: CoreSubscription[] = [];
  private readonly limiter: SlotLimiter;
  private readonly options: ResolvedConsumerOptions;
  private readonly stream: string;

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
    await this.limiter.idle();
    await Promise.all(this.advisories.map((sub) => sub.drain().catch(() => undefined)));
  }

  /** Drops everything without settling (a simulated crash). */
  abandon(): void {
    for (const loop of this.loops) loop.abandon();
  }

  private async handle(message: JsMsg): Promise<void> {
    const decision = await runDelivery(
      this.definition,
      {
        payload: message.string(),
        subject: this.deps.namespace.logicalSubject(message.subject),
        stream: this.definition.stream.name,
        sequence: message.seq,
        deliveryCount: message.info.deliveryCount,
        working: () => {
          message.working();
          return Promise.resolve();
        },
      },
      this.handler,
      this.options,
    );
    await this.settle(message, decision);
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
    try {
      await this.deps.deadLetters.record({
        stream: this.definition.stream.name,
        consumer: this.options.durable,
        sequence: message.seq,
        subject: this.deps.namespace.logicalSubject(message.subject),
        deliveries: message.info.deliveryCount,
        reason,
        payload: message.string(),
      });
    } catch (error) {
      this.deps.logger.error(
        `could not record dead letter for seq ${message.seq}, will retry: ${String(error)}`,
      );
      message.nak(backoffDelay(this.options.backoffMs, message.info.deliveryCount));
      return;
    }
    // 2.9 ignores a reason passed to term() (and then redelivers), so the reason lives in the record.
    message.term();
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
      reason: `max deliveries reached (${deliveries}/${this.options.maxDeliver}): the handler never settled within the ack deadline`,
      payload: original.string(),
    });
  }
}
