import type { Selectable } from 'kysely';
import type { Identity } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import type { RowOf } from './row-of.js';

/** A person's handles across sources (`identities`); absent handles are null. */
export type IdentityRow = Omit<RowOf<Identity>, 'createdAt' | 'updatedAt'>;

/** The handles an identity can be found by. */
export type IdentityHandle =
  'githubLogin' | 'slackUserId' | 'email' | 'linearUserId' | 'jiraAccountId';

/** Handles to set on an identity; absent ones are left as they are. */
export type IdentityLinks = Partial<Record<IdentityHandle, string>> & { displayName?: string };

const COLUMNS = {
  githubLogin: 'github_login',
  slackUserId: 'slack_user_id',
  email: 'email',
  linearUserId: 'linear_user_id',
  jiraAccountId: 'jira_account_id',
} as const;

function toRow(row: Selectable<Identity>): IdentityRow {
  return {
    id: row.id,
    githubLogin: row.github_login,
    slackUserId: row.slack_user_id,
    email: row.email,
    linearUserId: row.linear_user_id,
    jiraAccountId: row.jira_account_id,
    displayName: row.display_name,
  };
}

function columns(links: IdentityLinks): Partial<Record<(typeof COLUMNS)[IdentityHandle], string>> {
  const out: Partial<Record<(typeof COLUMNS)[IdentityHandle], string>> = {};
  for (const [handle, column] of Object.entries(COLUMNS) as [IdentityHandle, string][]) {
    const value = links[handle];
    if (value !== undefined) out[column as (typeof COLUMNS)[IdentityHandle]] = value;
  }
  return out;
}

/**
 * The identity map (GitHub login ↔ Slack user ↔ email ↔ Linear/Jira account). Handles are
 * stored as given: canonicalising them (lower-case logins and emails) is the caller's rule.
 * A handle already on another identity makes `insert`/`link` fail with a unique violation.
 */
export class IdentityRepository {
  constructor(private readonly db: Executor) {}

  /** Creates an identity. */
  async insert(id: string, links: IdentityLinks, at?: Date): Promise<IdentityRow> {
    const row = await this.db
      .insertInto('identities')
      .values({
        id,
        ...columns(links),
        display_name: links.displayName ?? '',
        created_at: timeOr(at),
        updated_at: timeOr(at),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** Sets handles on an existing identity; null when there is no such identity. */
  async link(id: string, links: IdentityLinks, at?: Date): Promise<IdentityRow | null> {
    const row = await this.db
      .updateTable('identities')
      .set({
        ...columns(links),
        ...(links.displayName === undefined ? {} : { display_name: links.displayName }),
        updated_at: timeOr(at),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** The identity holding `value` as its `handle`. */
  async findBy(handle: IdentityHandle, value: string): Promise<IdentityRow | null> {
    const row = await this.db
      .selectFrom('identities')
      .selectAll()
      .where(COLUMNS[handle], '=', value)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Every identity, by GitHub login (those without one last), at most `limit`. */
  async list(limit: number): Promise<IdentityRow[]> {
    const rows = await this.db
      .selectFrom('identities')
      .selectAll()
      .orderBy('github_login', (order) => order.asc().nullsLast())
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toRow);
  }

  /** Removes an identity; true when it existed. */
  async delete(id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('identities').where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}
