import { sql } from 'kysely';
import type { Executor } from './executor.js';
import { reviewCosts, type OpsReviewRow } from './ops-reviews.sql.js';

export type { OpsReviewRow } from './ops-reviews.sql.js';

/** The author of the fix runs CI babysitting asks for (dispatch's `CI_WATCH_ACTOR`). */
export const CI_FIX_REQUESTER = 'caravel:ci-watch';
/** The stop reason of a watch whose pull request was merged. */
export const MERGED_STOP_REASON = 'pull_request_merged';

/** Runs created in `[since, until)`. */
export interface OpsWindow {
  since: Date;
  until: Date;
}

/** Runs of one UTC day, repository and person, with their model usage. */
export interface OpsBucketRow {
  /** `YYYY-MM-DD`, UTC, of the run's creation. */
  day: string;
  /** `owner/name` (the run queue's key, else the thread's), or `(none)`. */
  repository: string;
  /** Who asked for the run (`source:id`), or `(unknown)` for a run the queue never saw. */
  person: string;
  runs: number;
  /** Runs that ended (completed, failed or interrupted). */
  ended: number;
  failed: number;
  /** The fix runs CI babysitting asked for, and what they cost. */
  ciFixes: number;
  ciFixCostUsd: number;
  /** The agent's steps (one model call each) and the tokens and dollars providers reported. */
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface OpsDurationRow {
  /** Null for the whole window. */
  day: string | null;
  runs: number;
  p50Seconds: number | null;
  p99Seconds: number | null;
}

export interface OpsStatusRow {
  status: string;
  exitStatus: string | null;
  runs: number;
}

export interface OpsFailureRow {
  exitStatus: string | null;
  runs: number;
  /** The latest such run's summary: what it said went wrong. */
  latestSummary: string;
}

/** Agent pull requests (CI watches) of a repository and person: opened, merged, their cost. */
export interface OpsPullRequestRow {
  repository: string;
  person: string;
  opened: number;
  merged: number;
  /** Every run of the merged pull requests' threads, whenever it ran. */
  mergedCostUsd: number;
}

const num = (value: unknown): number => Number(value ?? 0);

/** Read-only aggregates over runs, their step events, the run queue and CI watches (ops page). */
export class OpsRepository {
  constructor(private readonly db: Executor) {}

  /** The window's runs with their usage: CTE `w` (runs) and `u` (usage per run). */
  private scoped({ since, until }: OpsWindow) {
    return this.db
      .with('w', (db) =>
        db
          .selectFrom('runs as r')
          .innerJoin('threads as t', 't.id', 'r.thread_id')
          .leftJoin('run_queue as q', 'q.run_id', 'r.id')
          .select([
            'r.id',
            'r.status',
            'r.exit_status',
            'r.summary',
            'r.started_at',
            'r.finished_at',
            sql<string>`to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD')`.as('day'),
            sql<string>`coalesce(q.repository_key, t.repository_owner || '/' || t.repository_name, '(none)')`.as(
              'repository',
            ),
            sql<string>`coalesce(q.user_key, '(unknown)')`.as('person'),
            sql<boolean>`coalesce(q.command->'requestedBy'->>'externalId' = ${CI_FIX_REQUESTER}, false)`.as(
              'ci_fix',
            ),
          ])
          .where('r.created_at', '>=', since)
          .where('r.created_at', '<', until),
      )
      .with('u', (db) =>
        db
          .selectFrom('run_events as e')
          .innerJoin('w', 'w.id', 'e.run_id')
          .select([
            'e.run_id',
            sql<number>`count(*) filter (where coalesce(e.data->>'actor', 'agent') = 'agent')`.as(
              'calls',
            ),
            sql<number>`coalesce(sum((e.data->'usage'->>'inputTokens')::bigint), 0)`.as('input'),
            sql<number>`coalesce(sum((e.data->'usage'->>'outputTokens')::bigint), 0)`.as('output'),
            sql<number>`coalesce(sum((e.data->'usage'->>'costUsd')::float8), 0)`.as('cost'),
          ])
          .where('e.type', '=', 'evt.run.step')
          .groupBy('e.run_id'),
      );
  }

  /** Runs and usage per UTC day, repository and person. */
  async buckets(window: OpsWindow): Promise<OpsBucketRow[]> {
    const rows = await this.scoped(window)
      .selectFrom('w')
      .leftJoin('u', 'u.run_id', 'w.id')
      .select([
        'w.day',
        'w.repository',
        'w.person',
        sql<number>`count(*)`.as('runs'),
        sql<number>`count(*) filter (where w.status in ('completed', 'failed', 'interrupted'))`.as(
          'ended',
        ),
        sql<number>`count(*) filter (where w.status = 'failed')`.as('failed'),
        sql<number>`count(*) filter (where w.ci_fix)`.as('ci_fixes'),
        sql<number>`coalesce(sum(u.cost) filter (where w.ci_fix), 0)`.as('ci_fix_cost'),
        sql<number>`coalesce(sum(u.calls), 0)`.as('calls'),
        sql<number>`coalesce(sum(u.input), 0)`.as('input'),
        sql<number>`coalesce(sum(u.output), 0)`.as('output'),
        sql<number>`coalesce(sum(u.cost), 0)`.as('cost'),
      ])
      .groupBy(['w.day', 'w.repository', 'w.person'])
      .orderBy('w.day')
      .orderBy('w.repository')
      .orderBy('w.person')
      .execute();
    return rows.map((row) => ({
      day: row.day,
      repository: row.repository,
      person: row.person,
      runs: num(row.runs),
      ended: num(row.ended),
      failed: num(row.failed),
      ciFixes: num(row.ci_fixes),
      ciFixCostUsd: num(row.ci_fix_cost),
      modelCalls: num(row.calls),
      inputTokens: num(row.input),
      outputTokens: num(row.output),
      costUsd: num(row.cost),
    }));
  }

  /** p50 / p99 of started-to-finished seconds of the window's ended runs: per day, and overall. */
  async durations(window: OpsWindow): Promise<OpsDurationRow[]> {
    const seconds = sql`extract(epoch from (w.finished_at - w.started_at))`;
    const rows = await this.scoped(window)
      .selectFrom('w')
      .select([
        'w.day',
        sql<number>`count(*)`.as('runs'),
        sql<number | null>`percentile_cont(0.5) within group (order by ${seconds})`.as('p50'),
        sql<number | null>`percentile_cont(0.99) within group (order by ${seconds})`.as('p99'),
      ])
      .where('w.started_at', 'is not', null)
      .where('w.finished_at', 'is not', null)
      .groupBy(sql`grouping sets ((w.day), ())`)
      .orderBy('w.day')
      .execute();
    return rows.map((row) => ({
      day: row.day ?? null,
      runs: num(row.runs),
      p50Seconds: row.p50 === null ? null : num(row.p50),
      p99Seconds: row.p99 === null ? null : num(row.p99),
    }));
  }

  /** How many of the window's runs are in each status and exit status. */
  async statuses(window: OpsWindow): Promise<OpsStatusRow[]> {
    const rows = await this.scoped(window)
      .selectFrom('w')
      .select(['w.status', 'w.exit_status', sql<number>`count(*)`.as('runs')])
      .groupBy(['w.status', 'w.exit_status'])
      .orderBy('runs', 'desc')
      .orderBy('w.status')
      .execute();
    return rows.map((row) => ({
      status: row.status,
      exitStatus: row.exit_status,
      runs: num(row.runs),
    }));
  }

  /** The window's failed runs by exit status, with the latest one's summary. */
  async failures(window: OpsWindow): Promise<OpsFailureRow[]> {
    const rows = await this.scoped(window)
      .selectFrom('w')
      .select([
        'w.exit_status',
        sql<number>`count(*)`.as('runs'),
        sql<string>`(array_agg(w.summary order by w.finished_at desc nulls last))[1]`.as('latest'),
      ])
      .where('w.status', '=', 'failed')
      .groupBy('w.exit_status')
      .orderBy('runs', 'desc')
      .execute();
    return rows.map((row) => ({
      exitStatus: row.exit_status,
      runs: num(row.runs),
      latestSummary: row.latest ?? '',
    }));
  }

  /** The reviewer's cost and the findings of Caravel's a commit fixed, per repository. */
  reviews(window: OpsWindow): Promise<OpsReviewRow[]> {
    return reviewCosts(this.db, window);
  }

  /**
   * Agent pull requests by repository and thread owner: opened in the window, merged in the
   * window (their watch stopped as merged), and the cost of every run of the merged ones' threads.
   */
  async pullRequests({ since, until }: OpsWindow): Promise<OpsPullRequestRow[]> {
    const merged = sql<boolean>`(c.stopped_reason = ${MERGED_STOP_REASON} and c.updated_at >= ${since} and c.updated_at < ${until})`;
    const rows = await this.db
      .with('tc', (db) =>
        db
          .selectFrom('run_events as e')
          .innerJoin('ci_watches as cw', 'cw.thread_id', 'e.thread_id')
          .select([
            'e.thread_id',
            sql<number>`coalesce(sum((e.data->'usage'->>'costUsd')::float8), 0)`.as('cost'),
          ])
          .where('e.type', '=', 'evt.run.step')
          .groupBy('e.thread_id'),
      )
      .selectFrom('ci_watches as c')
      .leftJoin('thread_owners as o', 'o.thread_id', 'c.thread_id')
      .leftJoin('tc', 'tc.thread_id', 'c.thread_id')
      .select([
        sql<string>`c.repository_owner || '/' || c.repository_name`.as('repository'),
        sql<string>`coalesce(o.owner, '(unknown)')`.as('person'),
        sql<number>`count(*) filter (where c.created_at >= ${since} and c.created_at < ${until})`.as(
          'opened',
        ),
        sql<number>`count(*) filter (where ${merged})`.as('merged'),
        sql<number>`coalesce(sum(tc.cost) filter (where ${merged}), 0)`.as('merged_cost'),
      ])
      .where((eb) =>
        eb.or([eb.and([eb('c.created_at', '>=', since), eb('c.created_at', '<', until)]), merged]),
      )
      .groupBy([sql`1`, sql`2`])
      .orderBy('repository')
      .orderBy('person')
      .execute();
    return rows.map((row) => ({
      repository: row.repository,
      person: row.person,
      opened: num(row.opened),
      merged: num(row.merged),
      mergedCostUsd: num(row.merged_cost),
    }));
  }
}
