import type { EvalReviewCaseRepository, EvalRunSummaryRow } from '@caravel/db';
import { proportion, reviewF1Interval } from '@caravel/evals';

/** A reviewer run's scores: micro-averaged over its scored cases, F1 with its 95% interval. */
export interface ReviewScoresView {
  cases: number;
  expected: number;
  found: number;
  matched: number;
  precision: number | null;
  recall: number | null;
  f1: { value: number | null; low: number; high: number };
}

/**
 * A recorded eval run with its headline figure: a Harbor run's resolve rate (resolved attempts
 * over attempts, 95% Wilson interval; null with no attempt), a reviewer run's precision, recall
 * and F1 (95% bootstrap interval over its cases; null for a Harbor run).
 */
export type EvalRunView = EvalRunSummaryRow & {
  resolve: { rate: number | null; low: number; high: number };
  review: ReviewScoresView | null;
};

type CaseCounts = { caseId: string; expected: number; found: number; matched: number }[];

function reviewView(counts: CaseCounts): ReviewScoresView {
  const cases = counts.map((c) => ({ id: c.caseId, ...c }));
  const f1 = reviewF1Interval(cases);
  const sum = (pick: (c: CaseCounts[number]) => number) => counts.reduce((n, c) => n + pick(c), 0);
  const [expected, found, matched] = [
    sum((c) => c.expected),
    sum((c) => c.found),
    sum((c) => c.matched),
  ];
  return {
    cases: counts.length,
    expected,
    found,
    matched,
    precision: found === 0 ? null : matched / found,
    recall: expected === 0 ? null : matched / expected,
    f1: { value: f1.value, low: f1.low, high: f1.high },
  };
}

/** The runs' views, reading the review runs' case counts in one query. */
export async function runViews(
  runs: readonly EvalRunSummaryRow[],
  reviewCases: Pick<EvalReviewCaseRepository, 'countsOf'>,
): Promise<EvalRunView[]> {
  const reviewIds = runs.filter((r) => r.kind === 'review').map((r) => r.id);
  const counts =
    reviewIds.length > 0 ? await reviewCases.countsOf(reviewIds) : new Map<string, CaseCounts>();
  return runs.map((run) => {
    const { rate, low, high } = proportion(run.resolvedAttempts, run.attempts);
    return {
      ...run,
      resolve: { rate: run.attempts === 0 ? null : rate, low, high },
      review: run.kind === 'review' ? reviewView(counts.get(run.id) ?? []) : null,
    };
  });
}
