import { AppError } from '@caravel/errors';
import type { Database } from '../connection/database.types.js';
import { LANGGRAPH_TABLES } from '../grants/service-tables.types.js';
import { absentTables } from './absent-tables.js';
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

/**
 * The checkpointer's side of {@link checkMigrated}: LangGraph's tables ({@link LANGGRAPH_TABLES}),
 * which its `setup()` creates with DDL a service's role may not run. A process that does not own
 * the schema checks them instead, and refuses (`MIGRATIONS_PENDING`, naming
 * {@link MIGRATE_COMMAND}, which runs that setup as the owner) when one is absent.
 */
export async function checkCheckpointerTables(database: Database): Promise<void> {
  const absent = await absentTables(database, LANGGRAPH_TABLES);
  if (absent.length === 0) return;
  throw new AppError(
    'MIGRATIONS_PENDING',
    `The database lacks the run checkpointer's tables (${absent.join(', ')}), and ` +
      `DATABASE_MIGRATE=false: this service does not change the schema. Run \`${MIGRATE_COMMAND}\` ` +
      'with the owner\'s DATABASE_URL, then start the run again (docs/db.md, "Migrating").',
    { details: { tables: absent } },
  );
}
