import { STREAMS } from '@caravel/contracts';
import { openDatabase, type Database, type DatabaseLogger } from '@caravel/db';
import {
  connectJetStreamBus,
  createEmbeddedBus,
  type Bus,
  type BusLogger,
} from '@caravel/messaging';
import { Logger } from '@nestjs/common';
import { composeRuntime, type PlatformRuntime } from './runtime.js';

async function withDatabase(
  database: Database,
  attach: (database: Database) => Promise<Bus>,
): Promise<Bus> {
  try {
    const bus = await attach(database);
    await bus.ensureStreams(Object.values(STREAMS));
    return bus;
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** A service process of a team deployment: NATS JetStream + PostgreSQL. */
export async function openDistributedRuntime(options: {
  name: string;
  natsUrl: string;
  databaseUrl: string;
  /** false: apply no migration, refuse a database that lacks one (default true: apply them). */
  migrate?: boolean;
  busNamespace?: string;
  /** Where the bus logs (lost and regained connections, dead letters); default Nest's `Bus` logger. */
  busLogger?: BusLogger;
}): Promise<PlatformRuntime> {
  const database = await openDatabase({
    url: options.databaseUrl,
    migrate: options.migrate === false ? 'check' : true,
  });
  const bus = await withDatabase(database, () =>
    connectJetStreamBus({
      url: options.natsUrl,
      name: options.name,
      logger: options.busLogger ?? new Logger('Bus'),
      ...(options.busNamespace ? { namespace: options.busNamespace } : {}),
    }),
  );
  return composeRuntime({
    name: options.name,
    mode: 'distributed',
    bus,
    database,
    ownsSchema: options.migrate !== false,
  });
}

/**
 * Everything in one process: the embedded bus, durable in the embedded database (PGlite in
 * `<dataDir>/pgdata`, or a PostgreSQL URL when given).
 */
export async function openEmbeddedRuntime(options: {
  name: string;
  dataDir: string;
  databaseUrl?: string;
  /** Told what opening the database does (each migration applied). */
  logger?: DatabaseLogger;
}): Promise<PlatformRuntime> {
  const database = await openDatabase({
    url: options.databaseUrl ?? `pglite:${options.dataDir}/pgdata`,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const bus = await withDatabase(database, (db) =>
    Promise.resolve(createEmbeddedBus({ database: db, name: options.name })),
  );
  return composeRuntime({ name: options.name, mode: 'embedded', bus, database });
}
