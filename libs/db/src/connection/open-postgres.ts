import { Kysely, sql } from 'kysely';
import pg from 'pg';
import type { DB } from '../generated/types.js';
import { CodedPostgresDialect } from './coded-postgres.dialect.js';
import { isConnectionFailure, postgresUnavailable } from './database-errors.js';
import type { Database, DatabaseLogger } from './database.types.js';
import { PG_OID, parseInt8 } from './type-parsers.js';

const CONNECT_TIMEOUT_MS = 5_000;

// Per pool, not pg.types.setTypeParser: other pg users in the process (LangGraph) keep pg's defaults.
function getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
  if (oid === PG_OID.int8 && format !== 'binary') return parseInt8;
  return pg.types.getTypeParser(oid, format) as (value: string) => unknown;
}

const typeParsers: pg.CustomTypesConfig = { getTypeParser };

/** Connections of the pool whose commits do not wait for their flush (`relaxedCommits`). */
const RELAXED_POOL_MAX = 4;

/** A pg pool on `url` that reports lost connections instead of crashing the process. */
function poolOf(url: string, logger: DatabaseLogger, extra: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    types: typeParsers,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...extra,
  });
  // A client dropped by the server must not crash the process: the pool replaces an idle one,
  // and one in use rejects its query (DEPENDENCY_UNAVAILABLE); node-postgres emits 'error' on
  // both, and an 'error' nobody listens to throws.
  pool.on('error', (error) => logger.warn(`PostgreSQL idle connection error: ${error.message}`));
  pool.on('connect', (client) => {
    client.on('error', (error) => logger.warn(`PostgreSQL connection lost: ${error.message}`));
  });
  return pool;
}

/** Opens a PostgreSQL server database; fails with DEPENDENCY_UNAVAILABLE when it cannot be used. */
export async function openPostgres(
  location: { url: string; host: string; port: number; database: string },
  logger: DatabaseLogger,
): Promise<Database> {
  const pool = poolOf(location.url, logger);
  const db = new Kysely<DB>({ dialect: new CodedPostgresDialect({ pool }) });
  let relaxed: Kysely<DB> | null = null;
  const relaxedCommits = (): Kysely<DB> =>
    (relaxed ??= new Kysely<DB>({
      dialect: new CodedPostgresDialect({
        pool: poolOf(location.url, logger, {
          max: RELAXED_POOL_MAX,
          options: '-c synchronous_commit=off',
        }),
      }),
    }));
  const ping = async (): Promise<void> => {
    await sql`select 1`.execute(db);
  };
  try {
    await ping();
  } catch (error) {
    await db.destroy();
    if (isConnectionFailure(error)) {
      throw postgresUnavailable(location.host, location.port, location.database, error);
    }
    throw error;
  }
  let closing: Promise<void> | null = null;
  return {
    kind: 'postgres',
    db,
    connectionString: () => Promise.resolve(location.url),
    relaxedCommits,
    transaction: (work) => db.transaction().execute(work),
    pool: () => ({ open: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    ping,
    close: () =>
      (closing ??= Promise.all([db.destroy(), relaxed?.destroy()]).then(() => undefined)),
  };
}
