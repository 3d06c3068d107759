import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import type { AppliedMigration } from './migration-plan.js';

// Arbitrary but fixed: every Caravel process migrating one database contends for this key.
const MIGRATION_LOCK_KEY = 7_236_834_145_029_185;

interface HistoryRow {
  name: string;
  checksum: string;
  applied_at: Date;
}

/** What a service reads of `_caravel_migrations` to check it is migrated (no lock, no DDL). */
export class MigrationHistory {
  constructor(protected readonly db: Kysely<DB>) {}

  /** Whether the table exists: a database no migration ran on has none. */
  async exists(): Promise<boolean> {
    const result = await sql<{ found: boolean }>`
      select to_regclass('_caravel_migrations') is not null as found`.execute(this.db);
    return result.rows[0]?.found === true;
  }

  async listApplied(): Promise<AppliedMigration[]> {
    const result = await sql<HistoryRow>`
      select name, checksum, applied_at from _caravel_migrations order by name`.execute(this.db);
    return result.rows.map((row) => ({
      name: row.name,
      checksum: row.checksum,
      appliedAt: row.applied_at,
    }));
  }
}

/**
 * The runner's own bookkeeping table, `_caravel_migrations` (outside the Prisma schema): what
 * the runner, with the owner's rights, does to it. A service that only checks reads it through
 * {@link MigrationHistory}, so the table map gives services no more than SELECT on it.
 */
export class MigrationHistoryRepository extends MigrationHistory {
  /** Session-level advisory lock: waits while another starter migrates. Same connection to unlock. */
  async lock(): Promise<void> {
    await sql`select pg_advisory_lock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(this.db);
  }

  async unlock(): Promise<void> {
    await sql`select pg_advisory_unlock(${sql.lit(MIGRATION_LOCK_KEY)})`.execute(this.db);
  }

  async ensureTable(): Promise<void> {
    await sql`create table if not exists _caravel_migrations (
      name text primary key,
      checksum text not null,
      applied_at timestamptz not null default now()
    )`.execute(this.db);
  }

  /** Runs a migration script and records it, in one transaction. */
  async apply(name: string, script: string, checksum: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await sql.raw(script).execute(trx);
      await sql`insert into _caravel_migrations (name, checksum) values (${name}, ${checksum})`.execute(
        trx,
      );
    });
  }
}
