// Bus adapters the benchmark knows how to open: each gives a fresh bus and a cleanup.
import { randomBytes } from 'node:crypto';
import { STREAMS } from '@caravel/contracts';
import { connectJetStreamBus, silentLogger } from '@caravel/messaging';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/** Deletes the streams (and the lease bucket) a namespaced bench bus created. */
async function deleteNamespace(url, namespace) {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const name of jsm.streams.names()) {
      if (name.startsWith(`${namespace}_`) || name.startsWith(`KV_${namespace}_`)) await jsm.streams.delete(name);
    }
  } finally {
    await nc.close();
  }
}

export function jetStreamAdapter(url) {
  return {
    name: 'caravel jetstream',
    async open() {
      const namespace = `bench${randomBytes(4).toString('hex')}`;
      const bus = await connectJetStreamBus({ url, name: `${namespace}-bench`, namespace, logger: silentLogger });
      await bus.ensureStreams([STREAMS.COMMANDS]);
      return {
        bus,
        async cleanup() {
          await bus.close();
          await deleteNamespace(url, namespace);
        },
      };
    },
  };
}
