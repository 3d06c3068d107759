import { sql } from 'kysely';
import type { Executor } from './executor.js';

/** What the reviewer cost in a repository over a window, and the findings it got accepted. */
export interface OpsReviewRow {
  repository: string;
  /** The reviewer's model calls on the repository's pull requests in the window. */
  reviewCostUsd: number;
  /** Caravel's findings filed in the window. */
  findingsRaised: number;
  /** Caravel's findings a commit fixed in the window (`fixed_by_commit`): accepted by the team. */
  findingsAccepted: number;
}

const num = (value: unknown): number => Number(value ?? 0);

/** The reviewer's cost and accepted findings per repository over `[since, until)`. */
export async function reviewCosts(
  db: Executor,
  { since, until }: { since: Date; until: Date },
): Promise<OpsReviewRow[]> {
  const repository = sql<string>`l.owner || '/' || l.repo`;
  const [costs, findings] = await Promise.all([
    db
      .selectFrom('run_events as e')
      .innerJoin('review_ledgers as l', 'l.thread_id', 'e.thread_id')
      .select([
        repository.as('repository'),
        sql<number>`coalesce(sum((e.data->'usage'->>'costUsd')::float8), 0)`.as('cost'),
      ])
      .where('e.type', '=', 'evt.run.step')
      .where('e.occurred_at', '>=', since)
      .where('e.occurred_at', '<', until)
      .groupBy(sql`1`)
      .execute(),
    db
      .selectFrom('findings as f')
      .innerJoin('review_ledgers as l', 'l.thread_id', 'f.thread_id')
      .select([
        repository.as('repository'),
        sql<number>`count(*) filter (where f.created_at >= ${since} and f.created_at < ${until})`.as(
          'raised',
        ),
        sql<number>`count(*) filter (where f.resolution->>'kind' = 'fixed_by_commit'
          and (f.resolution->>'at')::timestamptz >= ${since}
          and (f.resolution->>'at')::timestamptz < ${until})`.as('accepted'),
      ])
      .where(sql<boolean>`f.author->>'kind' = 'caravel'`)
      .groupBy(sql`1`)
      .execute(),
  ]);
  const rows = new Map<string, OpsReviewRow>();
  const row = (name: string) =>
    rows.get(name) ??
    rows
      .set(name, { repository: name, reviewCostUsd: 0, findingsRaised: 0, findingsAccepted: 0 })
      .get(name)!;
  for (const c of costs) row(c.repository).reviewCostUsd = num(c.cost);
  for (const f of findings) {
    row(f.repository).findingsRaised = num(f.raised);
    row(f.repository).findingsAccepted = num(f.accepted);
  }
  return [...rows.values()]
    .filter((r) => r.reviewCostUsd > 0 || r.findingsRaised > 0 || r.findingsAccepted > 0)
    .sort((a, b) => a.repository.localeCompare(b.repository));
}
