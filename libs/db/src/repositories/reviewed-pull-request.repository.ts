import { sql } from 'kysely';
import type { Executor } from './executor.js';

/** A reviewed pull request as the dashboard lists it: its ledger and its findings by status. */
export interface ReviewedPullRequestRow {
  threadId: string;
  owner: string;
  repo: string;
  number: number;
  headSha: string | null;
  lastReviewedSha: string | null;
  open: number;
  resolved: number;
  dismissed: number;
  /** The later of the ledger's and its findings' last change. */
  updatedAt: Date;
}

export interface ReviewedPullRequestQuery {
  /** `owner/name`, as GitHub spells it. */
  repository?: string;
  limit?: number;
}

/** The review ledgers (`review_ledgers`, `findings`) read as a list, for the dashboard. */
export class ReviewedPullRequestRepository {
  constructor(private readonly db: Executor) {}

  /** Reviewed pull requests, the most recently changed first. */
  async list(query: ReviewedPullRequestQuery = {}): Promise<ReviewedPullRequestRow[]> {
    let select = this.db
      .selectFrom('review_ledgers as l')
      .leftJoin('findings as f', 'f.thread_id', 'l.thread_id')
      .select(({ fn }) => [
        'l.thread_id',
        'l.owner',
        'l.repo',
        'l.number',
        'l.head_sha',
        'l.last_reviewed_sha',
        fn.count<number>('f.id').filterWhere('f.status', '=', 'open').as('open'),
        fn.count<number>('f.id').filterWhere('f.status', '=', 'resolved').as('resolved'),
        fn.count<number>('f.id').filterWhere('f.status', '=', 'dismissed').as('dismissed'),
        sql<Date>`greatest(l.updated_at, max(f.updated_at))`.as('updated_at'),
      ])
      .groupBy('l.thread_id');
    if (query.repository !== undefined) {
      const [owner = '', repo = ''] = query.repository.split('/');
      select = select.where('l.owner', '=', owner).where('l.repo', '=', repo);
    }
    const rows = await select
      .orderBy('updated_at', 'desc')
      .orderBy('l.number', 'desc')
      .limit(query.limit ?? 100)
      .execute();
    return rows.map((row) => ({
      threadId: row.thread_id,
      owner: row.owner,
      repo: row.repo,
      number: row.number,
      headSha: row.head_sha,
      lastReviewedSha: row.last_reviewed_sha,
      open: Number(row.open),
      resolved: Number(row.resolved),
      dismissed: Number(row.dismissed),
      updatedAt: row.updated_at,
    }));
  }
}
