import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { Bus } from '../bus.port.js';
import { silentLogger } from '../settlement/index.js';
import type { BusHarnessFactory, BusTestHarness } from '../testing/bus-harness.js';
import { connectJetStreamBus } from './connect-jetstream-bus.js';
import { JetStreamBus } from './jetstream-bus.js';

/** Deletes every stream (and so every consumer and the lease bucket) under a namespace. */
export async function deleteJetStreamNamespace(url: string, prefix: string): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const names: string[] = [];
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${prefix}_`) || name.startsWith(`KV_${prefix}_`)) names.push(name);
    }
    for (const name of names) await jsm.streams.delete(name);
  } finally {
    await nc.close();
  }
}

/** A harness factory for the shared behaviour suite: one fresh random namespace per harness. */
export function jetStreamHarnessFactory(url: string): BusHarnessFactory {
  return async (): Promise<BusTestHarness> => {
    const prefix = `t${randomBytes(5).toString('hex')}`;
    const open = new Set<JetStreamBus>();
    return {
      label: `jetstream ${prefix}`,
      async replica(name = 'replica') {
        const bus = await connectJetStreamBus({
          url,
          name: `${prefix}-${name}`,
          namespace: prefix,
          logger: silentLogger,
        });
        open.add(bus);
        return bus;
      },
      async kill(bus: Bus) {
        if (!(bus instanceof JetStreamBus))
          throw new Error('this harness can only kill its own JetStream replicas');
        open.delete(bus);
        await bus.abort();
      },
      async dispose() {
        await Promise.all([...open].map((bus) => bus.close()));
        open.clear();
        await deleteJetStreamNamespace(url, prefix);
      },
    };
  };
}
