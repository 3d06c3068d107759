import { AppError } from '@caravel/errors';
import type { Database } from '../connection/database.types.js';
import { readMigrationFiles } from './migration-files.js';
import { MigrationHistory } from './migration-history.repository.js';
import { planMigrations } from './migration-plan.js';
import { defaultMigrationsDir } from './migrations-dir.js';
import { refuseModified, type MigrateOptions } from './migration-runner.js';

/** The command that applies the migrations a service refuses to start without. */
export const MIGRATE_COMMAND = 'caravel db migrate';

/**
 * Checks, without changing anything (no DDL, no lock), that every migration this build knows is
 * applied: what a service started with `DATABASE_MIGRATE=false` does instead of migrating, so
 * its role needs no more than SELECT on `_caravel_migrations`. Refuses with
 * `AppError('MIGRATIONS_PENDING')` naming the missing migrations and {@link MIGRATE_COMMAND},
 * or `MIGRATION_MODIFIED` when an applied one changed on disk. Migrations of a newer release
 * are fine (that release's services run beside this one during an upgrade).
 */
export async function checkMigrated(
  database: Database,
  options: Pick<MigrateOptions, 'migrationsDir' | 'files'> = {},
): Promise<void> {
  const files =
    options.files ?? readMigrationFiles(options.migrationsDir ?? defaultMigrationsDir());
  const history = new MigrationHistory(database.db);
  const plan = planMigrations(files, (await history.exists()) ? await history.listApplied() : []);
  refuseModified(plan);
  if (plan.pending.length === 0) return;
  const names = plan.pending.map((file) => file.name);
  const shown =
    names.length > 3
      ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more`
      : names.join(', ');
  throw new AppError(
    'MIGRATIONS_PENDING',
    `The database lacks ${names.length} migration${names.length === 1 ? '' : 's'} this build needs ` +
      `(${shown}), and DATABASE_MIGRATE=false: this service does not change the schema. ` +
      `Run \`${MIGRATE_COMMAND}\` with the owner's DATABASE_URL (the Helm chart's migrate Job does ` +
      'it before each install and upgrade), then start the service again (docs/db.md, "Migrating").',
    { details: { migrations: names } },
  );
}
