import type { Selectable } from 'kysely';
import type { PersonalToken } from '../generated/types.js';
import type { Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';
import type { PersonalTokenScope } from './states.js';

/** A person's dashboard API token as stored: its secret only as a SHA-256. */
export type PersonalTokenRow = RowOf<PersonalToken>;

/** A token to store (its id and the hash of its secret made by the caller). */
export interface NewPersonalToken {
  id: string;
  login: string;
  githubId: number;
  name: string;
  scope: PersonalTokenScope;
  secretSha256: string;
  expiresAt: Date;
}

const toRow: (row: Selectable<PersonalToken>) => PersonalTokenRow = rowOf<PersonalToken>;

/** People's dashboard API tokens (`personal_tokens`). */
export class PersonalTokenRepository {
  constructor(private readonly db: Executor) {}

  async create(token: NewPersonalToken): Promise<PersonalTokenRow> {
    const row = await this.db
      .insertInto('personal_tokens')
      .values({
        id: token.id,
        login: token.login,
        github_id: token.githubId,
        name: token.name,
        scope: token.scope,
        secret_sha256: token.secretSha256,
        expires_at: token.expiresAt,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  async get(id: string): Promise<PersonalTokenRow | null> {
    const row = await this.db
      .selectFrom('personal_tokens')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** A person's tokens, newest first (revoked ones too: the list says so). */
  async listFor(login: string): Promise<PersonalTokenRow[]> {
    const rows = await this.db
      .selectFrom('personal_tokens')
      .selectAll()
      .where('login', '=', login)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map(toRow);
  }

  /** Revokes one of `login`'s tokens; false when it has no such live token. */
  async revoke(id: string, login: string, at: Date = new Date()): Promise<boolean> {
    const row = await this.db
      .updateTable('personal_tokens')
      .set({ revoked_at: at })
      .where('id', '=', id)
      .where('login', '=', login)
      .where('revoked_at', 'is', null)
      .returning('id')
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Notes a use, at most once a minute per token (a read per request is enough otherwise). */
  async touch(id: string, at: Date = new Date()): Promise<void> {
    const minuteAgo = new Date(at.getTime() - 60_000);
    await this.db
      .updateTable('personal_tokens')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', minuteAgo)]))
      .execute();
  }
}
