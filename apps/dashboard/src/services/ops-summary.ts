import type { OpsBucketRow, OpsDurationRow, OpsPullRequestRow, OpsReviewRow } from '@caravel/db';

/** Runs, model usage and cost of a group (the window, a day, a repository, a person). */
export interface UsageView {
  runs: number;
  ended: number;
  failed: number;
  modelCalls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  /** Cost over ended runs; null with none. */
  costPerRunUsd: number | null;
  ciFixes: number;
  ciFixCostUsd: number;
  costPerCiFixUsd: number | null;
  pullRequestsOpened: number;
  pullRequestsMerged: number;
  /** Every run of the merged pull requests' threads. */
  mergedCostUsd: number;
  costPerMergedPullRequestUsd: number | null;
  /** The reviewer's model calls, and Caravel's findings a commit fixed (by repository only). */
  reviewCostUsd: number;
  findingsAccepted: number;
  costPerAcceptedFindingUsd: number | null;
}

export interface DayView extends UsageView {
  day: string;
  p50Seconds: number | null;
  p99Seconds: number | null;
}

export interface GroupView extends UsageView {
  key: string;
}

type Sums = Omit<
  UsageView,
  'costPerRunUsd' | 'costPerCiFixUsd' | 'costPerMergedPullRequestUsd' | 'costPerAcceptedFindingUsd'
>;

const EMPTY: Sums = {
  runs: 0,
  ended: 0,
  failed: 0,
  modelCalls: 0,
  inputTokens: 0,
  outputTokens: 0,
  costUsd: 0,
  ciFixes: 0,
  ciFixCostUsd: 0,
  pullRequestsOpened: 0,
  pullRequestsMerged: 0,
  mergedCostUsd: 0,
  reviewCostUsd: 0,
  findingsAccepted: 0,
};

/** Dollars to the micro-dollar, so sums of floats read as the provider's figures. */
const usd = (value: number) => Math.round(value * 1e6) / 1e6;
const per = (cost: number, count: number) => (count > 0 ? usd(cost / count) : null);

/** `into` with each of `more`'s counts added. */
function plus(into: Sums, more: Partial<Sums>): Sums {
  const out = { ...into };
  for (const key of Object.keys(more) as (keyof Sums)[]) out[key] += more[key] ?? 0;
  return out;
}

function add(into: Sums, bucket: OpsBucketRow): Sums {
  const { day: _day, repository: _repository, person: _person, ...counts } = bucket;
  return plus(into, counts);
}

function addPullRequests(into: Sums, row: OpsPullRequestRow): Sums {
  return plus(into, {
    pullRequestsOpened: row.opened,
    pullRequestsMerged: row.merged,
    mergedCostUsd: row.mergedCostUsd,
  });
}

function addReviews(into: Sums, row: OpsReviewRow): Sums {
  return plus(into, { reviewCostUsd: row.reviewCostUsd, findingsAccepted: row.findingsAccepted });
}

function view(sums: Sums): UsageView {
  return {
    ...sums,
    costUsd: usd(sums.costUsd),
    ciFixCostUsd: usd(sums.ciFixCostUsd),
    mergedCostUsd: usd(sums.mergedCostUsd),
    costPerRunUsd: per(sums.costUsd, sums.ended),
    costPerCiFixUsd: per(sums.ciFixCostUsd, sums.ciFixes),
    costPerMergedPullRequestUsd: per(sums.mergedCostUsd, sums.pullRequestsMerged),
    reviewCostUsd: usd(sums.reviewCostUsd),
    costPerAcceptedFindingUsd: per(sums.reviewCostUsd, sums.findingsAccepted),
  };
}

/** Groups by `keyOf`, busiest (most cost, then most runs) first. */
function grouped(
  buckets: OpsBucketRow[],
  pullRequests: OpsPullRequestRow[],
  keyOf: (row: { repository: string; person: string }) => string,
  reviews: OpsReviewRow[] = [],
): GroupView[] {
  const sums = new Map<string, Sums>();
  for (const b of buckets) sums.set(keyOf(b), add(sums.get(keyOf(b)) ?? EMPTY, b));
  for (const p of pullRequests) sums.set(keyOf(p), addPullRequests(sums.get(keyOf(p)) ?? EMPTY, p));
  for (const r of reviews) sums.set(r.repository, addReviews(sums.get(r.repository) ?? EMPTY, r));
  return [...sums.entries()]
    .map(([key, s]) => ({ key, ...view(s) }))
    .sort((a, b) => b.costUsd - a.costUsd || b.runs - a.runs || a.key.localeCompare(b.key));
}

/** Every UTC day of `[since, until)`, `YYYY-MM-DD`. */
export function daysOf(since: Date, until: Date): string[] {
  const days: string[] = [];
  const day = new Date(Date.UTC(since.getUTCFullYear(), since.getUTCMonth(), since.getUTCDate()));
  for (; day < until; day.setUTCDate(day.getUTCDate() + 1)) {
    days.push(day.toISOString().slice(0, 10));
  }
  return days;
}

/** The ops page's figures from the repository's rows: the window's, per day, repository, person. */
export function summarise(input: {
  since: Date;
  until: Date;
  buckets: OpsBucketRow[];
  durations: OpsDurationRow[];
  pullRequests: OpsPullRequestRow[];
  reviews?: OpsReviewRow[];
}) {
  const { buckets, durations, pullRequests, reviews = [] } = input;
  const overall = durations.find((d) => d.day === null);
  const totals = reviews.reduce(
    addReviews,
    pullRequests.reduce(addPullRequests, buckets.reduce(add, EMPTY)),
  );
  const days: DayView[] = daysOf(input.since, input.until).map((day) => {
    const duration = durations.find((d) => d.day === day);
    return {
      day,
      ...view(buckets.filter((b) => b.day === day).reduce(add, EMPTY)),
      p50Seconds: duration?.p50Seconds ?? null,
      p99Seconds: duration?.p99Seconds ?? null,
    };
  });
  return {
    totals: {
      ...view(totals),
      p50Seconds: overall?.p50Seconds ?? null,
      p99Seconds: overall?.p99Seconds ?? null,
    },
    days,
    byRepository: grouped(buckets, pullRequests, (row) => row.repository, reviews),
    byPerson: grouped(buckets, pullRequests, (row) => row.person),
  };
}
