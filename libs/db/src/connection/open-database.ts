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
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  logger?: DatabaseLogger;
  /** Migrations folder; defaults to the package's `prisma/migrations`. */
  migrationsDir?: string;
  /** Where PGlite's cluster template and images are kept (default `~/.cache`; tests). */
  cacheRoot?: string;
}

/**
 * Opens PostgreSQL or PGlite by URL and, unless `migrate: false`, brings its schema up to date.
 * An unreachable PostgreSQL fails with one `AppError('DEPENDENCY_UNAVAILABLE')` naming host:port.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const logger = options.logger ?? silentLogger;
  const location = parseDatabaseUrl(options.url);
  if (location.kind === 'pglite' && options.migrate !== false && !options.migrationsDir) {
    return openMigratedPglite(location.dataDir, logger, options.cacheRoot ?? defaultCacheRoot());
  }
  const database =
    location.kind === 'postgres'
      ? await openPostgresLazily(location, logger)
      : (await openPglite(location.dataDir, logger, undefined, options.cacheRoot)).database;
  if (options.migrate === false) return database;
  return migrated(database, logger, optionalMigrationsDir(options.migrationsDir));
}

/** PostgreSQL's client (`pg`, ~16 MiB) is loaded only by a process that opens PostgreSQL. */
async function openPostgresLazily(
  location: Extract<DatabaseLocation, { kind: 'postgres' }>,
  logger: DatabaseLogger,
): Promise<Database> {
  const { openPostgres } = await import('./open-postgres.js');
  return openPostgres(location, logger);
}

async function migrated(
  database: Database,
  logger: DatabaseLogger,
  source: Pick<MigrateOptions, 'migrationsDir' | 'files'> = {},
): Promise<Database> {
  try {
    await migrate(database, { logger, ...source });
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
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
