import type { Selectable } from 'kysely';
import type { DashboardSession } from '../generated/types.js';
import type { Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';
import type { DashboardRole, SessionRevocation } from './states.js';

/** A dashboard sign-in as stored: its id only as a SHA-256. */
export type DashboardSessionRow = RowOf<DashboardSession>;

/** A sign-in to store (the hash of its id made by the caller). */
export interface NewDashboardSession {
  idSha256: string;
  login: string;
  githubId: number;
  role: DashboardRole;
  createdAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  address: string | null;
}

/** Who ended sessions, and why. */
export interface SessionRevocationBy {
  reason: SessionRevocation;
  /** The person's login, an admin's, or `machine`. */
  by: string;
  at: Date;
}

const toRow: (row: Selectable<DashboardSession>) => DashboardSessionRow = rowOf<DashboardSession>;

/** Dashboard sign-ins (`dashboard_sessions`): one row per session cookie, looked up by its hash. */
export class DashboardSessionRepository {
  constructor(private readonly db: Executor) {}

  async create(session: NewDashboardSession): Promise<DashboardSessionRow> {
    const row = await this.db
      .insertInto('dashboard_sessions')
      .values({
        id_sha256: session.idSha256,
        login: session.login.toLowerCase(),
        github_id: session.githubId,
        role: session.role,
        created_at: session.createdAt,
        last_seen_at: session.createdAt,
        expires_at: session.expiresAt,
        user_agent: session.userAgent,
        address: session.address,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** The session whose id hashes to `idSha256` (revoked or expired ones too), by its key. */
  async get(idSha256: string): Promise<DashboardSessionRow | null> {
    const row = await this.db
      .selectFrom('dashboard_sessions')
      .selectAll()
      .where('id_sha256', '=', idSha256)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Notes a use at `at`, only when the last one noted is at or before `notedBy`. */
  async touch(idSha256: string, at: Date, notedBy: Date): Promise<void> {
    await this.db
      .updateTable('dashboard_sessions')
      .set({ last_seen_at: at })
      .where('id_sha256', '=', idSha256)
      .where('last_seen_at', '<=', notedBy)
      .where('revoked_at', 'is', null)
      .execute();
  }

  /** Ends one session; false when it is unknown or already ended. */
  async revoke(idSha256: string, revocation: SessionRevocationBy): Promise<boolean> {
    const result = await this.db
      .updateTable('dashboard_sessions')
      .set(revokedBy(revocation))
      .where('id_sha256', '=', idSha256)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  /** Ends every live session of `login` (any case); how many it ended. */
  async revokeAll(login: string, revocation: SessionRevocationBy): Promise<number> {
    const result = await this.db
      .updateTable('dashboard_sessions')
      .set(revokedBy(revocation))
      .where('login', '=', login.toLowerCase())
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', revocation.at)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  /** The live sessions of `login` (any case) at `at`, the most recently used first. */
  async listLive(login: string, at: Date): Promise<DashboardSessionRow[]> {
    const rows = await this.db
      .selectFrom('dashboard_sessions')
      .selectAll()
      .where('login', '=', login.toLowerCase())
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', at)
      .orderBy('last_seen_at', 'desc')
      .orderBy('created_at', 'desc')
      .execute();
    return rows.map(toRow);
  }

  /** Deletes the sessions expired by `at` (revoked ones too, once they expire); how many. */
  async deleteExpired(at: Date): Promise<number> {
    const result = await this.db
      .deleteFrom('dashboard_sessions')
      .where('expires_at', '<=', at)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function revokedBy({ reason, by, at }: SessionRevocationBy) {
  return { revoked_at: at, revoked_reason: reason, revoked_by: by };
}
