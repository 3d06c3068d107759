import { mkdirSync } from 'node:fs';
import { PGlite, types } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { AppError } from '@caravel/errors';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { parseInt8 } from '../connection/type-parsers.js';
import type { Database, DatabaseLogger } from '../connection/database.types.js';
import type { DB } from '../generated/types.js';
import { PgliteDriver } from './pglite.driver.js';
import { PgliteSession } from './pglite-session.js';

// LangGraph's PostgresSaver keeps a pg pool; a handful of sockets is plenty for one process.
const SOCKET_MAX_CONNECTIONS = 16;

async function createPglite(dataDir: string | null): Promise<PGlite> {
  const options = { parsers: { [types.INT8]: parseInt8 } };
  try {
    if (dataDir === null) return await PGlite.create(options);
    mkdirSync(dataDir, { recursive: true });
    return await PGlite.create({ ...options, dataDir });
  } catch (cause) {
    const where = dataDir ?? 'memory';
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `PGlite could not open its data directory ${where}: ${reason}`,
      {
        cause,
        details: { dataDir: where },
      },
    );
  }
}

/** Opens the embedded database: PGlite in memory (`dataDir` null) or in a data directory. */
export async function openPglite(
  dataDir: string | null,
  logger: DatabaseLogger,
): Promise<Database> {
  const pglite = await createPglite(dataDir);
  const session = new PgliteSession(pglite);
  let server: PGLiteSocketServer | null = null;
  let serverUrl: Promise<string> | null = null;

  const stopServer = async (): Promise<void> => {
    if (server) await server.stop();
    server = null;
  };
  const db = new Kysely<DB>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new PgliteDriver(session, () => pglite.close()),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });

  const startServer = async (): Promise<string> => {
    const socketServer = new PGLiteSocketServer({
      db: session.socketFacade(),
      host: '127.0.0.1',
      port: 0,
      maxConnections: SOCKET_MAX_CONNECTIONS,
    });
    await socketServer.start();
    server = socketServer;
    const url = `postgres://postgres@${socketServer.getServerConn()}/postgres`;
    logger.log(`PGlite pg-wire socket listening on ${socketServer.getServerConn()}`);
    return url;
  };

  let closing: Promise<void> | null = null;
  return {
    kind: 'pglite',
    db,
    connectionString: () => (serverUrl ??= startServer()),
    transaction: (work) => db.transaction().execute(work),
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () =>
      (closing ??= (async () => {
        await stopServer();
        await db.destroy();
      })()),
  };
}
