import { randomUUID } from 'node:crypto';
import { sql, type Selectable } from 'kysely';
import type { ReviewStyle } from '../generated/types.js';
import { toJson } from '../connection/json.js';
import { timeOr, type Executor } from './executor.js';
import { rowOf, type RowOf } from './row-of.js';
import type { ReviewStyleMode } from './states.js';

/** What the saver counted when it saved a version. */
export interface ReviewStyleCounts {
  pullRequests: number;
  comments: number;
  reviewers: number;
  outcomes?: number;
}

/** One saved version of a repository's review style, its provenance parsed. */
export type ReviewStyleRow = Omit<
  RowOf<ReviewStyle>,
  'pullRequests' | 'commentIds' | 'reviewers' | 'counts'
> & {
  pullRequests: number[];
  commentIds: string[];
  reviewers: string[];
  counts: ReviewStyleCounts;
};

/** A version to save; the repository numbers it. */
export interface NewReviewStyle {
  repository: string;
  mode: ReviewStyleMode;
  threadId: string;
  prompt: string;
  summary: string;
  wordCount: number;
  model: string;
  pullRequests: number[];
  commentIds: string[];
  reviewers: string[];
  counts: ReviewStyleCounts;
  /** An `edited` version: who proposed the edit, and the proposal the gate accepted. */
  editedBy?: string | null;
  proposalId?: string | null;
}

/** A repository with a review style: its version in force and how many it has had. */
export interface ReviewStyleSummaryRow {
  repository: string;
  version: number;
  mode: ReviewStyleMode;
  model: string;
  summary: string;
  wordCount: number;
  editedBy: string | null;
  createdAt: Date;
  versions: number;
}

/** A finding of Caravel's on a repository's ledgers whose outcome is known, or that people answered. */
export interface FindingOutcomeRow {
  id: string;
  number: number;
  category: string;
  severity: string;
  title: string;
  status: string;
  /** The resolution JSON as stored (`@caravel/findings`' `Resolution`), null while open. */
  resolution: unknown;
  /** The interactions JSON as stored (replies). */
  interactions: unknown;
  updatedAt: Date;
}

const SAVE_ATTEMPTS = 5;

/** Review styles per repository (`review_styles`): append-only versions, the latest is in force. */
export class ReviewStyleRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Saves a new version numbered after the repository's latest. Two saves at once both land, one
   * after the other (a version taken by the other is retried with the next number).
   */
  async save(style: NewReviewStyle, at?: Date): Promise<ReviewStyleRow> {
    const repository = style.repository.toLowerCase();
    for (let attempt = 1; attempt <= SAVE_ATTEMPTS; attempt += 1) {
      const latest = await this.latest(repository);
      const row = await this.db
        .insertInto('review_styles')
        .values({
          id: randomUUID(),
          repository,
          version: (latest?.version ?? 0) + 1,
          mode: style.mode,
          thread_id: style.threadId,
          prompt: style.prompt,
          summary: style.summary,
          word_count: style.wordCount,
          model: style.model,
          pull_requests: toJson(style.pullRequests),
          comment_ids: toJson(style.commentIds),
          reviewers: toJson(style.reviewers),
          counts: toJson(style.counts),
          edited_by: style.editedBy ?? null,
          proposal_id: style.proposalId ?? null,
          created_at: timeOr(at),
        })
        .onConflict((oc) => oc.columns(['repository', 'version']).doNothing())
        .returningAll()
        .executeTakeFirst();
      if (row) return styleOf(row);
    }
    throw new Error(`review style of ${repository}: no free version after ${SAVE_ATTEMPTS} tries`);
  }

  /** The repository's version in force (the highest), or null before any was saved. */
  async latest(repository: string): Promise<ReviewStyleRow | null> {
    const row = await this.db
      .selectFrom('review_styles')
      .selectAll()
      .where('repository', '=', repository.toLowerCase())
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ? styleOf(row) : null;
  }

  /** Every version of the repository, oldest first. */
  async history(repository: string): Promise<ReviewStyleRow[]> {
    const rows = await this.db
      .selectFrom('review_styles')
      .selectAll()
      .where('repository', '=', repository.toLowerCase())
      .orderBy('version', 'asc')
      .execute();
    return rows.map(styleOf);
  }

  /** One version of the repository, or null when it has no such version. */
  async version(repository: string, version: number): Promise<ReviewStyleRow | null> {
    const row = await this.db
      .selectFrom('review_styles')
      .selectAll()
      .where('repository', '=', repository.toLowerCase())
      .where('version', '=', version)
      .executeTakeFirst();
    return row ? styleOf(row) : null;
  }

  /** The repository's versions, the newest first, at most `limit`. */
  async newestFirst(repository: string, limit: number): Promise<ReviewStyleRow[]> {
    const rows = await this.db
      .selectFrom('review_styles')
      .selectAll()
      .where('repository', '=', repository.toLowerCase())
      .orderBy('version', 'desc')
      .limit(limit)
      .execute();
    return rows.map(styleOf);
  }

  /** Every repository with a style, by name: its version in force and its number of versions. */
  async summaries(): Promise<ReviewStyleSummaryRow[]> {
    const rows = await this.db
      .selectFrom('review_styles as s')
      .innerJoin(
        (eb) =>
          eb
            .selectFrom('review_styles')
            .select(['repository', (e) => e.fn.max<number>('version').as('latest')])
            .select((e) => e.fn.countAll<string>().as('versions'))
            .groupBy('repository')
            .as('m'),
        (join) =>
          join.onRef('m.repository', '=', 's.repository').onRef('m.latest', '=', 's.version'),
      )
      .select([
        's.repository',
        's.version',
        's.mode',
        's.model',
        's.summary',
        's.word_count',
        's.edited_by',
        's.created_at',
        'm.versions',
      ])
      .orderBy('s.repository')
      .execute();
    return rows.map((r) => ({
      repository: r.repository,
      version: r.version,
      mode: r.mode,
      model: r.model,
      summary: r.summary,
      wordCount: r.word_count,
      editedBy: r.edited_by,
      createdAt: r.created_at,
      versions: Number(r.versions),
    }));
  }

  /** Repositories with at least one version (the ones with a nightly continual job). */
  async repositories(): Promise<string[]> {
    const rows = await this.db
      .selectFrom('review_styles')
      .select('repository')
      .distinct()
      .orderBy('repository')
      .execute();
    return rows.map((r) => r.repository);
  }

  /**
   * Caravel's findings on the repository's pull requests closed (fixed by a commit, dismissed) or
   * replied to by a person after `since`: the outcomes a continual run learns from.
   */
  async findingOutcomesSince(repository: string, since: Date): Promise<FindingOutcomeRow[]> {
    const rows = await this.caravelFindings(repository)
      // An outcome happens no later than the row's last change: a cheap first cut.
      .where('f.updated_at', '>', since)
      // The outcome's own time decides (a later sync of a closed finding's thread is no outcome).
      .where(
        sql<boolean>`(
          (f.status <> 'open' and (f.resolution->>'at')::timestamptz > ${since})
          or exists (
            select 1 from jsonb_array_elements(f.interactions) as i
            where i->>'kind' = 'human_reply' and (i->>'createdAt')::timestamptz > ${since}
          )
        )`,
      )
      .orderBy('f.updated_at')
      .orderBy('f.id')
      .execute();
    return rows.map(outcomeOf);
  }

  /**
   * Caravel's findings on the repository's pull requests published as inline review comments
   * (`commentId`, the comment's id on the SCM), the newest first, at most `limit`: the comments
   * whose 👍/👎 reactions a continual run reads.
   */
  async surfacedFindings(
    repository: string,
    limit: number,
  ): Promise<(FindingOutcomeRow & { commentId: string })[]> {
    const rows = await this.caravelFindings(repository)
      .select('f.surface_comment_id')
      .where('f.surface_comment_id', 'is not', null)
      .orderBy('f.created_at', 'desc')
      .orderBy('f.id')
      .limit(limit)
      .execute();
    return rows.map(({ surface_comment_id: commentId, ...columns }) => ({
      ...outcomeOf(columns),
      commentId: commentId ?? '',
    }));
  }

  /** Caravel's own findings on the repository's review ledgers, as outcome columns. */
  private caravelFindings(repository: string) {
    const [owner = '', repo = ''] = repository.toLowerCase().split('/');
    return this.db
      .selectFrom('findings as f')
      .innerJoin('review_ledgers as l', 'l.thread_id', 'f.thread_id')
      .select([
        'f.id',
        'l.number',
        'f.category',
        'f.severity',
        'f.title',
        'f.status',
        'f.resolution',
        'f.interactions',
        'f.updated_at',
      ])
      .where(sql<string>`lower(l.owner)`, '=', owner)
      .where(sql<string>`lower(l.repo)`, '=', repo)
      .where(sql<string>`f.author->>'kind'`, '=', 'caravel');
  }
}

/** A finding's outcome columns as selected (the time still in its column's name). */
type OutcomeColumns = Omit<FindingOutcomeRow, 'updatedAt'> & { updated_at: Date };

function outcomeOf({ updated_at, ...columns }: OutcomeColumns): FindingOutcomeRow {
  return { ...columns, updatedAt: updated_at };
}

function styleOf(row: Selectable<ReviewStyle>): ReviewStyleRow {
  return {
    ...rowOf<ReviewStyle>(row),
    pullRequests: row.pull_requests as number[],
    commentIds: row.comment_ids as string[],
    reviewers: row.reviewers as string[],
    counts: row.counts as ReviewStyleCounts,
  };
}
