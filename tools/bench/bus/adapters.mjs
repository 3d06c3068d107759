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
      if (name.startsWith(`${namespace}_`) || name.startsWith(`KV_${namespace}_`))
        await jsm.streams.delete(name);
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
      const bus = await connectJetStreamBus({
        url,
        name: `${namespace}-bench`,
        namespace,
        logger: silentLogger,
      });
      await bus.ensureStreams([STREAMS.COMMANDS]);
      return {
        bus,
        /** A stream's name on the server (namespaced). */
        streamName: (spec) => `${namespace}_${spec.name}`,
        async cleanup() {
          await bus.close();
          await deleteNamespace(url, namespace);
        },
      };
    },
  };
}

/** The embedded adapter on PGlite (in memory, as `caravel start` runs it) or on a fresh PostgreSQL. */
export function embeddedAdapter(target, postgresUrl) {
  return {
    name: `caravel embedded/${target}`,
    async open() {
      const { openDatabase } = await import('@caravel/db');
      const { createEmbeddedBus } = await import('@caravel/messaging');
      let dropDatabase = async () => undefined;
      let url = 'pglite:memory';
      if (target === 'postgres') {
        const { default: pg } = await import('pg');
        const name = `caravel_bench_${randomBytes(4).toString('hex')}`;
        const admin = new pg.Client({ connectionString: postgresUrl });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        const parsed = new URL(postgresUrl);
        parsed.pathname = `/${name}`;
        url = parsed.toString();
        dropDatabase = async () => {
          await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
          await admin.end();
        };
      }
      const database = await openDatabase({ url });
      const bus = createEmbeddedBus({ database, name: 'bench', logger: silentLogger });
      await bus.ensureStreams([STREAMS.COMMANDS]);
      return {
        bus,
        async cleanup() {
          await bus.close();
          await database.close();
          await dropDatabase();
        },
      };
    },
  };
}
