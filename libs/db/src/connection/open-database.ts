import { checkMigrated } from '../migrations/migration-check.js';
import { readMigrationFiles } from '../migrations/migration-files.js';
import { migrate, type MigrateOptions } from '../migrations/migration-runner.js';
import { defaultMigrationsDir } from '../migrations/migrations-dir.js';
import { defaultCacheRoot } from '../pglite/cluster-template.js';
import { migratedImageFile, existingImage, saveMigratedImage } from '../pglite/migrated-image.js';
import { openPglite } from '../pglite/open-pglite.js';
import { parseDatabaseUrl, type DatabaseLocation } from './database-url.js';
import { silentLogger, type Database, type DatabaseLogger } from './database.types.js';

export interface OpenDatabaseOptions {
  /** `postgres://…`, `postgresql://…`, `pglite:memory` or `pglite:<dir>`. */
  url: string;
  /**
   * Apply pending migrations before returning (default true); `'check'` applies none and refuses
   * (`MIGRATIONS_PENDING`) a database that lacks one (a service without DDL rights); false
   * neither applies nor checks.
   */
  migrate?: boolean | 'check';
  logger?: DatabaseLogger;
  /** Migrations folder; defaults to the package's `prisma/migrations`. */
  migrationsDir?: string;
  /** Where PGlite's cluster template and images are kept (default `~/.cache`; tests). */
  cacheRoot?: string;
}

/**
 * Opens PostgreSQL or PGlite by URL and brings its schema up to date (`migrate`, default true)
 * or checks that it is (`'check'`).
 * An unreachable PostgreSQL fails with one `AppError('DEPENDENCY_UNAVAILABLE')` naming host:port.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const logger = options.logger ?? silentLogger;
  const location = parseDatabaseUrl(options.url);
  const mode = options.migrate ?? true;
  if (location.kind === 'pglite' && mode === true && !options.migrationsDir) {
    return openMigratedPglite(location.dataDir, logger, options.cacheRoot ?? defaultCacheRoot());
  }
  const database =
    location.kind === 'postgres'
      ? await openPostgresLazily(location, logger)
      : (await openPglite(location.dataDir, logger, undefined, options.cacheRoot)).database;
  if (mode === false) return database;
  const source = optionalMigrationsDir(options.migrationsDir);
  return mode === 'check'
    ? closedOnFailure(database, () => checkMigrated(database, source))
    : migrated(database, logger, source);
}

/** PostgreSQL's client (`pg`, ~16 MiB) is loaded only by a process that opens PostgreSQL. */
async function openPostgresLazily(
  location: Extract<DatabaseLocation, { kind: 'postgres' }>,
  logger: DatabaseLogger,
): Promise<Database> {
  const { openPostgres } = await import('./open-postgres.js');
  return openPostgres(location, logger);
}

/** The database once `work` on it succeeded; closed when it failed. */
async function closedOnFailure(
  database: Database,
  work: (database: Database) => Promise<unknown>,
): Promise<Database> {
  try {
    await work(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

function migrated(
  database: Database,
  logger: DatabaseLogger,
  source: Pick<MigrateOptions, 'migrationsDir' | 'files'> = {},
): Promise<Database> {
  return closedOnFailure(database, () => migrate(database, { logger, ...source }));
}

/**
 * PGlite with this build's migrations. A new cluster starts from the image of one with exactly
 * these migrations applied (`~/.cache/caravel/pglite-migrated-<version>-<migrations>.tar`) when
 * one exists, so it has nothing to apply (about a second on a quiet machine, several on a busy
 * one, for every `caravel run` and test platform); the first new cluster migrated on a machine
 * leaves that image behind. The migrations still run (and find nothing pending): an image that
 * is not what its name says would be caught there.
 */
async function openMigratedPglite(
  dataDir: string | null,
  logger: DatabaseLogger,
  cacheRoot: string,
): Promise<Database> {
  const files = readMigrationFiles(defaultMigrationsDir());
  const imageFile = migratedImageFile(cacheRoot, files);
  // The image is looked for only when a new cluster is made, never to reopen a data directory.
  let image: string | null = null;
  const opened = await openPglite(
    dataDir,
    logger,
    async () => (image = await existingImage(imageFile)),
    cacheRoot,
  );
  const database = await migrated(opened.database, logger, { files });
  if (opened.fresh && !image && files.length > 0) {
    await saveMigratedImage(imageFile, await opened.dumpImage()).catch(() => undefined);
  }
  return database;
}

function optionalMigrationsDir(
  migrationsDir: string | undefined,
): Pick<MigrateOptions, 'migrationsDir'> {
  return migrationsDir === undefined ? {} : { migrationsDir };
}
