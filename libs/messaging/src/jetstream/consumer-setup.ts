import type { Consumable } from '@caravel/contracts';
import { THREAD_PARTITIONS } from '@caravel/contracts';
import {
  AckPolicy,
  DeliverPolicy,
  ReplayPolicy,
  type ConsumerConfig,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { nanos } from '@nats-io/nats-core';
import type { ResolvedConsumerOptions } from '../settlement/index.js';
import type { Namespace } from './namespace.js';
import { isNotFound } from './stream-setup.js';

/** One server-side durable that a subscription pulls from. */
export interface DurablePlan {
  name: string;
  config: Partial<ConsumerConfig> & { durable_name: string; filter_subject: string };
}

function durableConfig(
  name: string,
  filter: string,
  options: ResolvedConsumerOptions,
  maxAckPending: number,
) {
  return {
    durable_name: name,
    filter_subject: filter,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    replay_policy: ReplayPolicy.Instant,
    ack_wait: nanos(options.ackWaitMs),
    max_deliver: options.maxDeliver,
    max_ack_pending: maxAckPending,
  };
}

/**
 * The durables behind one consumer. Unordered: one durable on the definition's filter. Ordered:
 * one durable per thread partition, each allowed a single unacked message, which keeps a thread
 * strictly in order while the partitions proceed in parallel (2.9 has no multi-filter consumers).
 */
export function planDurables(
  definition: Consumable,
  options: ResolvedConsumerOptions,
  namespace: Namespace,
): DurablePlan[] {
  if (!options.ordered || !definition.threadScoped) {
    const name = namespace.consumerName(options.durable);
    const pending = Math.max(options.concurrency * 4, 64);
    return [
      {
        name,
        config: durableConfig(name, namespace.subject(definition.filter()), options, pending),
      },
    ];
  }
  return Array.from({ length: THREAD_PARTITIONS }, (_, partition) => {
    const name = namespace.partitionConsumerName(options.durable, partition);
    const filter = namespace.subject(definition.filter({ partition }));
    return { name, config: durableConfig(name, filter, options, 1) };
  });
}

/** Creates the durable, or brings an existing one to the declared config. */
export async function applyDurable(
  jsm: JetStreamManager,
  stream: string,
  plan: DurablePlan,
): Promise<void> {
  try {
    const { config } = await jsm.consumers.info(stream, plan.name);
    const drifted =
      config.filter_subject !== plan.config.filter_subject ||
      config.ack_wait !== plan.config.ack_wait ||
      config.max_deliver !== plan.config.max_deliver ||
      config.max_ack_pending !== plan.config.max_ack_pending;
    if (drifted) {
      const { ack_wait, max_deliver, max_ack_pending, filter_subject } = plan.config;
      await jsm.consumers.update(stream, plan.name, {
        ack_wait,
        max_deliver,
        max_ack_pending,
        filter_subject,
      });
    }
  } catch (error) {
    if (!isNotFound(error)) throw error;
    await jsm.consumers.add(stream, plan.config).catch(async (addError: unknown) => {
      // Another replica may have created it between our info and add.
      await jsm.consumers.info(stream, plan.name).catch(() => {
        throw addError;
      });
    });
  }
}
