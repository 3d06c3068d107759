import type { JetStreamManager } from '@nats-io/jetstream';
import type { ConsumerBacklog } from '../bus.port.js';

/**
 * The backlog of one logical consumer, summed over the JetStream durables behind it (one, or one
 * per partition of an ordered thread-scoped consumer), as the server counts it: `num_pending`
 * not delivered yet, `num_ack_pending` delivered and not acknowledged.
 */
export async function durablesBacklog(
  jsm: JetStreamManager,
  stream: string,
  consumer: string,
  durables: readonly string[],
): Promise<ConsumerBacklog> {
  const infos = await Promise.all(durables.map((name) => jsm.consumers.info(stream, name)));
  return {
    consumer,
    waiting: infos.reduce((sum, info) => sum + info.num_pending, 0),
    inHandlers: infos.reduce((sum, info) => sum + info.num_ack_pending, 0),
  };
}
