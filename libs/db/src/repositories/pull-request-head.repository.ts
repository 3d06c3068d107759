import type { Selectable } from 'kysely';
import type { PullRequestHead } from '../generated/types.js';
import type { Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';

/** The latest head heard of for a pull request (`pull_request_heads`). */
export type PullRequestHeadRow = RowOf<PullRequestHead>;

/** A pull request: its repository's owner and name (in any case) and its number. */
export interface PullRequestKey {
  owner: string;
  repo: string;
  number: number;
}

/** GitHub's owner and repository names ignore case, as hex shas do: one key, one head. */
function keyOf(pullRequest: PullRequestKey): PullRequestKey {
  return {
    owner: pullRequest.owner.toLowerCase(),
    repo: pullRequest.repo.toLowerCase(),
    number: pullRequest.number,
  };
}

const toRow: (row: Selectable<PullRequestHead>) => PullRequestHeadRow = rowOf<PullRequestHead>;

/**
 * Each pull request's latest pushed head. Pushes reach the reviewer and dispatch through other
 * consumers than review requests and check reports, so either can be handled after a later push;
 * they ask here whether a newer head is known. A push heard of again, or an older one handled
 * late, keeps the latest. Keys and shas are stored lower-cased, whatever case callers use.
 */
export class PullRequestHeadRepository {
  constructor(private readonly db: Executor) {}

  /** Records `headSha` as pushed at `at`, unless a later push is recorded. */
  async record(pullRequest: PullRequestKey, head: { headSha: string; at: Date }): Promise<void> {
    await this.db
      .insertInto('pull_request_heads')
      .values({ ...keyOf(pullRequest), head_sha: head.headSha.toLowerCase(), seen_at: head.at })
      .onConflict((conflict) =>
        conflict
          .columns(['owner', 'repo', 'number'])
          .doUpdateSet((eb) => ({
            head_sha: eb.ref('excluded.head_sha'),
            seen_at: eb.ref('excluded.seen_at'),
          }))
          .where('pull_request_heads.seen_at', '<', (eb) => eb.ref('excluded.seen_at')),
      )
      .execute();
  }

  /** The pull request's latest pushed head when it was pushed at or after `at`; else null. */
  async since(pullRequest: PullRequestKey, at: Date): Promise<PullRequestHeadRow | null> {
    const { owner, repo, number } = keyOf(pullRequest);
    const row = await this.db
      .selectFrom('pull_request_heads')
      .selectAll()
      .where('owner', '=', owner)
      .where('repo', '=', repo)
      .where('number', '=', number)
      .where('seen_at', '>=', at)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }
}
