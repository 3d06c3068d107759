import type { Selectable } from 'kysely';
import type { UserToken } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import type { RowOf } from './row-of.js';
import type { UserTokenKind } from './states.js';

/** An encrypted user token (`user_tokens`); the plaintext never reaches this layer. */
export type UserTokenRow = Omit<RowOf<UserToken>, 'createdAt'>;

/** A token to store, already encrypted. */
export interface UserTokenUpsert {
  id: string;
  provider: string;
  subject: string;
  kind: UserTokenKind;
  ciphertext: string;
  keyId: string;
  expiresAt?: Date | null;
  at?: Date;
}

/** Where a page of rows for re-encryption starts and how long it is. */
export interface UserTokenPage {
  /** Rows under any key but this one. */
  notUnderKey: string;
  /** Only ids greater than this (keyset pagination). */
  afterId?: string;
  limit: number;
}

function toRow(row: Selectable<UserToken>): UserTokenRow {
  return {
    id: row.id,
    provider: row.provider,
    subject: row.subject,
    kind: row.kind,
    ciphertext: row.ciphertext,
    keyId: row.key_id,
    expiresAt: row.expires_at,
    updatedAt: row.updated_at,
  };
}

/** Encrypted user tokens, one per (provider, subject, kind). */
export class UserTokenRepository {
  constructor(private readonly db: Executor) {}

  /** Stores a token, replacing the one of the same provider, subject and kind. */
  async upsert(token: UserTokenUpsert, executor: Executor = this.db): Promise<UserTokenRow> {
    const values = {
      ciphertext: token.ciphertext,
      key_id: token.keyId,
      expires_at: token.expiresAt ?? null,
      updated_at: timeOr(token.at),
    };
    const row = await executor
      .insertInto('user_tokens')
      .values({
        id: token.id,
        provider: token.provider,
        subject: token.subject,
        kind: token.kind,
        ...values,
      })
      .onConflict((conflict) =>
        conflict.columns(['provider', 'subject', 'kind']).doUpdateSet(values),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** The token of a subject, if stored. */
  async find(provider: string, subject: string, kind: UserTokenKind): Promise<UserTokenRow | null> {
    const row = await this.db
      .selectFrom('user_tokens')
      .selectAll()
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .where('kind', '=', kind)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Deletes every token of a subject with a provider; returns how many. */
  async deleteSubject(provider: string, subject: string): Promise<number> {
    const result = await this.db
      .deleteFrom('user_tokens')
      .where('provider', '=', provider)
      .where('subject', '=', subject)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** A page of rows sealed under another key than `notUnderKey`, by id. */
  async pageNotUnderKey(page: UserTokenPage): Promise<UserTokenRow[]> {
    let query = this.db
      .selectFrom('user_tokens')
      .selectAll()
      .where('key_id', '<>', page.notUnderKey)
      .orderBy('id')
      .limit(page.limit);
    if (page.afterId !== undefined) query = query.where('id', '>', page.afterId);
    return (await query.execute()).map(toRow);
  }

  /** A page of every row, by id (for verification sweeps). */
  async page(afterId: string | undefined, limit: number): Promise<UserTokenRow[]> {
    let query = this.db.selectFrom('user_tokens').selectAll().orderBy('id').limit(limit);
    if (afterId !== undefined) query = query.where('id', '>', afterId);
    return (await query.execute()).map(toRow);
  }

  /**
   * Swaps a row's ciphertext only if it still holds `expected` (a concurrent write wins, and the
   * swap is then skipped); true when swapped.
   */
  async replaceCiphertext(
    id: string,
    expected: string,
    next: { ciphertext: string; keyId: string },
  ): Promise<boolean> {
    const result = await this.db
      .updateTable('user_tokens')
      .set({ ciphertext: next.ciphertext, key_id: next.keyId })
      .where('id', '=', id)
      .where('ciphertext', '=', expected)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** How many rows each key seals. */
  async countByKey(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('user_tokens')
      .select(['key_id', (eb) => eb.fn.countAll<number>().as('count')])
      .groupBy('key_id')
      .execute();
    return new Map(rows.map((row) => [row.key_id, Number(row.count)]));
  }
}
