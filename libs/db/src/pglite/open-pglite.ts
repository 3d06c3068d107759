import { mkdirSync, openAsBlob } from 'node:fs';
import { rm } from 'node:fs/promises';
import { PGlite, types, type PGliteOptions } from '@electric-sql/pglite';
import type { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { AppError } from '@caravel/errors';
import { Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import { parseInt8 } from '../connection/type-parsers.js';
import type { Database, DatabaseLogger } from '../connection/database.types.js';
import type { DB } from '../generated/types.js';
import { PgliteDriver, PgliteKysely } from './pglite.driver.js';
import { PgliteSession } from './pglite-session.js';
import { defaultCacheRoot, initialiseCluster, memoryClusterImage } from './cluster-template.js';
import { unpackImage } from './migrated-image.js';
import { needsInitdb, pgliteStartParams } from './pglite-options.js';

// LangGraph's PostgresSaver keeps a pg pool; a handful of sockets is plenty for one process.
const SOCKET_MAX_CONNECTIONS = 16;

/** An in-memory database from the cached cluster image; initdb when there is none or it fails. */
async function createInMemory(options: PGliteOptions, cacheRoot: string): Promise<PGlite> {
  const image = await memoryClusterImage(cacheRoot);
  if (image) {
    try {
      return await PGlite.create({ ...options, loadDataDir: image });
    } catch {
      // A damaged image: a cluster of its own instead.
    }
  }
  return PGlite.create(options);
}

/**
 * Starts PGlite on the cluster's tar image in `file`, or null when it cannot (then: its own). A
 * data directory is unpacked by `tar` and opened as any other: PGlite's own loader copies the
 * image through WebAssembly memory, which is never given back (~90 MB more RSS, and slower).
 */
async function fromImage(options: PGliteOptions, file: string): Promise<PGlite | null> {
  try {
    if (options.dataDir && (await unpackImage(file, options.dataDir))) {
      return await PGlite.create(options);
    }
    return await PGlite.create({ ...options, loadDataDir: await openAsBlob(file) });
  } catch {
    if (options.dataDir) {
      await rm(options.dataDir, { recursive: true, force: true });
      mkdirSync(options.dataDir, { recursive: true });
    }
    return null;
  }
}

/** A started PGlite, and whether its cluster is new (made by this open). */
interface StartedPglite {
  pglite: PGlite;
  fresh: boolean;
}

/** The tar image a new cluster starts from, or null; asked only when a cluster is made. */
export type ClusterImageSource = () => Promise<string | null>;

const noImage: ClusterImageSource = () => Promise.resolve(null);

async function createPglite(
  dataDir: string | null,
  imageSource: ClusterImageSource,
  cacheRoot: string,
): Promise<StartedPglite> {
  const options = { parsers: { [types.INT8]: parseInt8 }, startParams: pgliteStartParams() };
  try {
    if (dataDir === null) {
      const image = await imageSource();
      const loaded = image ? await fromImage(options, image) : null;
      return { pglite: loaded ?? (await createInMemory(options, cacheRoot)), fresh: true };
    }
    mkdirSync(dataDir, { recursive: true });
    if (!needsInitdb(dataDir))
      return { pglite: await PGlite.create({ ...options, dataDir }), fresh: false };
    const image = await imageSource();
    const loaded = image ? await fromImage({ ...options, dataDir }, image) : null;
    if (loaded) return { pglite: loaded, fresh: true };
    await initialiseCluster(dataDir, cacheRoot);
    return { pglite: await PGlite.create({ ...options, dataDir }), fresh: true };
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

/** An opened embedded database, whether its cluster is new, and a way to image it. */
export interface OpenedPglite {
  database: Database;
  /** True when this open created the cluster (a new data directory, or memory). */
  fresh: boolean;
  /** The cluster as a tar image, for the next new database to start from. */
  dumpImage(): Promise<Blob>;
}

/** Opens the embedded database: PGlite in memory (`dataDir` null) or in a data directory. */
export async function openPglite(
  dataDir: string | null,
  logger: DatabaseLogger,
  imageSource: ClusterImageSource = noImage,
  cacheRoot: string = defaultCacheRoot(),
): Promise<OpenedPglite> {
  const { pglite, fresh } = await createPglite(dataDir, imageSource, cacheRoot);
  const session = new PgliteSession(pglite);
  let server: PGLiteSocketServer | null = null;
  let serverUrl: Promise<string> | null = null;

  const stopServer = async (): Promise<void> => {
    if (server) await server.stop();
    server = null;
  };
  const driver = new PgliteDriver(session, () => pglite.close());
  const db: Kysely<DB> = new PgliteKysely<DB>(
    {
      dialect: {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => driver,
        createIntrospector: (kysely) => new PostgresIntrospector(kysely),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      },
    },
    driver,
  );

  const startServer = async (): Promise<string> => {
    // Loaded here: only the LangGraph checkpointer asks for a connection string, at a first run.
    const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
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
  const database: Database = {
    kind: 'pglite',
    db,
    connectionString: () => (serverUrl ??= startServer()),
    relaxedCommits: () => db,
    transaction: (work) => db.transaction().execute(work),
    pool: () => null,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () =>
      (closing ??= (async () => {
        await stopServer();
        await db.destroy();
        // Kysely closes its driver (and so PGlite) only if a query went through it: a database
        // opened and closed without one would keep PGlite, and the process, alive.
        if (!pglite.closed) await pglite.close();
      })()),
  };
  return {
    database,
    fresh,
    dumpImage: async () => {
      // Taken like a connection: no transaction of ours or a socket client's is half done.
      const release = await session.acquire();
      try {
        return await pglite.dumpDataDir('none');
      } finally {
        release();
      }
    },
  };
}
