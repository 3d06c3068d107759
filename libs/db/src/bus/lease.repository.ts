import { sql, type Kysely } from 'kysely';
import type { DB } from '../generated/types.js';
import { nowPlusMs, toSequence } from './bus-sql.js';

/** A lease as stored (`leases`). */
export interface LeaseRow {
  key: string;
  holder: string;
  revision: number;
  expiresAt: Date;
}

/**
 * Per-key leases with expiry and compare-and-set on `revision`. Every operation is one
 * statement, so concurrent claimants on PostgreSQL resolve on the row lock: exactly one wins.
 * Expiry is judged by the database clock, shared by every replica.
 */
export class LeaseRepository {
  constructor(private readonly db: Kysely<DB>) {}

  /** Takes the lease when absent or expired; null when it is held (by anyone). */
  async acquire(key: string, holder: string, ttlMs: number): Promise<LeaseRow | null> {
    const result = await sql<RawLease>`
      insert into leases as l (key, holder, revision, expires_at)
      values (${key}, ${holder}, 1, ${nowPlusMs(ttlMs)})
      on conflict (key) do update
        set holder = excluded.holder, revision = l.revision + 1, expires_at = excluded.expires_at
        where l.expires_at <= now()
      returning key, holder, revision, expires_at`.execute(this.db);
    return toLease(result.rows[0]);
  }

  /** Extends the lease if `revision` is still current and it was not taken over. */
  async renew(
    key: string,
    holder: string,
    revision: number,
    ttlMs: number,
  ): Promise<LeaseRow | null> {
    const result = await sql<RawLease>`
      update leases set revision = revision + 1, expires_at = ${nowPlusMs(ttlMs)}
      where key = ${key} and holder = ${holder} and revision = ${revision}
      returning key, holder, revision, expires_at`.execute(this.db);
    return toLease(result.rows[0]);
  }

  /** Deletes the lease if `revision` is still current. */
  async release(key: string, holder: string, revision: number): Promise<boolean> {
    const result = await sql`
      delete from leases where key = ${key} and holder = ${holder} and revision = ${revision}
      returning key`.execute(this.db);
    return result.rows.length > 0;
  }

  /** The live lease on `key`, or null when absent or expired. */
  async get(key: string): Promise<LeaseRow | null> {
    const result = await sql<RawLease>`
      select key, holder, revision, expires_at from leases
      where key = ${key} and expires_at > now()`.execute(this.db);
    return toLease(result.rows[0]);
  }
}

interface RawLease {
  key: string;
  holder: string;
  revision: string | number;
  expires_at: Date | string;
}

function toLease(row: RawLease | undefined): LeaseRow | null {
  if (!row) return null;
  return {
    key: row.key,
    holder: row.holder,
    revision: toSequence(row.revision),
    expiresAt: new Date(row.expires_at),
  };
}
