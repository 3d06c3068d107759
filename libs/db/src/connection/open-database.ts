import { migrate } from '../migrations/migration-runner.js';
import { openPglite } from '../pglite/open-pglite.js';
import { parseDatabaseUrl } from './database-url.js';
import { silentLogger, type Database, type DatabaseLogger } from './database.types.js';
import { openPostgres } from './open-postgres.js';

export interface OpenDatabaseOptions {
  /** `postgres://…`, `postgresql://…`, `pglite:memory` or `pglite:<dir>`. */
  url: string;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  logger?: DatabaseLogger;
  /** Migrations folder; defaults to the package's `prisma/migrations`. */
  migrationsDir?: string;
}

/**
 * Opens PostgreSQL or PGlite by URL and, unless `migrate: false`, brings its schema up to date.
 * An unreachable PostgreSQL fails with one `AppError('DEPENDENCY_UNAVAILABLE')` naming host:port.
 */
export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const logger = options.logger ?? silentLogger;
  const location = parseDatabaseUrl(options.url);
  const database =
    location.kind === 'postgres'
      ? await openPostgres(location, logger)
      : await openPglite(location.dataDir, logger);
  if (options.migrate === false) return database;
  try {
    await migrate(database, {
      logger,
      ...(options.migrationsDir === undefined ? {} : { migrationsDir: options.migrationsDir }),
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}
