import type { JetStreamBus } from './jetstream-bus.js';
import type { JetStreamBusOptions } from './connect-jetstream-bus.js';

export type { JetStreamBusOptions } from './connect-jetstream-bus.js';
export type { JetStreamBus } from './jetstream-bus.js';
export { Namespace } from './namespace.js';

/**
 * Connects to NATS and returns a JetStream-backed bus (see `connect-jetstream-bus.ts`). The NATS
 * client (~0.2-0.5 s and ~14 MiB) is loaded at the first connect, so a process on the embedded
 * bus (`caravel start`) never loads it.
 */
export async function connectJetStreamBus(options: JetStreamBusOptions): Promise<JetStreamBus> {
  const { connectJetStreamBus: connect } = await import('./connect-jetstream-bus.js');
  return connect(options);
}
