import { AppError } from '@caravel/errors';
import { silentLogger, type Database, type DatabaseLogger } from '../connection/database.types.js';
import { readMigrationFiles, type MigrationFile } from './migration-files.js';
import { MigrationHistoryRepository } from './migration-history.repository.js';
import { planMigrations, type MigrationPlan } from './migration-plan.js';
import { defaultMigrationsDir } from './migrations-dir.js';

export interface MigrateOptions {
  /** Defaults to the package's `prisma/migrations`. */
  migrationsDir?: string;
  /** The migrations already read (by whoever named an image after them); else read from the folder. */
  files?: readonly MigrationFile[];
  logger?: DatabaseLogger;
}

/** What a `migrate` call did. */
export interface MigrateResult {
  /** Names applied by this call, in order (empty when the database was up to date). */
  readonly applied: string[];
}

/** Refuses (MIGRATION_MODIFIED) a plan whose applied migrations changed on disk. */
export function refuseModified(plan: MigrationPlan): void {
  if (plan.modified.length === 0) return;
  throw new AppError(
    'MIGRATION_MODIFIED',
    `Applied migration ${plan.modified.join(', ')} changed on disk since it was applied. Migrations are ` +
      'immutable once applied: restore the file and add a new migration (npm run db:migrate -- <name>).',
    { details: { migrations: plan.modified } },
  );
}

/**
 * Applies the pending migrations of the folder, each in its own transaction, in name order,
 * recording name + checksum in `_caravel_migrations`. Concurrent callers on one database are
 * serialised by a PostgreSQL advisory lock (PGlite too), so each migration is applied once.
 * Refuses (MIGRATION_MODIFIED) when an applied migration's file changed.
 */
export async function migrate(
  database: Database,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const logger = options.logger ?? silentLogger;
  const files =
    options.files ?? readMigrationFiles(options.migrationsDir ?? defaultMigrationsDir());
  return database.db.connection().execute(async (connection) => {
    const history = new MigrationHistoryRepository(connection);
    await history.lock();
    try {
      await history.ensureTable();
      const plan = planMigrations(files, await history.listApplied());
      refuseModified(plan);
      if (plan.unknown.length > 0) {
        logger.warn(`database has migrations this build does not know: ${plan.unknown.join(', ')}`);
      }
      for (const file of plan.pending) {
        const started = Date.now();
        await history.apply(file.name, file.sql, file.checksum);
        logger.log(`applied migration ${file.name} (${Date.now() - started} ms)`);
      }
      return { applied: plan.pending.map((file) => file.name) };
    } finally {
      await history.unlock();
    }
  });
}
