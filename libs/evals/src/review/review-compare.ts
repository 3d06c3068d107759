import type { GatePolicy, GateVerdict } from '../compare/regression-gate.js';
import { bootstrapInterval, type BootstrapInterval } from '../stats/bootstrap.js';
import { signTest, type SignTest } from '../stats/sign-test.js';
import { totalScores, type ReviewScores } from './review-score.js';

/** A case's counts as a run keeps them (`review-eval.json`'s score, or `eval_review_cases`). */
export interface ReviewCaseCounts {
  id: string;
  expected: number;
  found: number;
  matched: number;
}

/** A reviewer eval run as compared: its identity and its scored cases (failed ones left out). */
export interface ReviewRunRecord {
  runId: string;
  set: string;
  config: string;
  model: string;
  cases: ReviewCaseCounts[];
}

/** One side of a review comparison, over the cases both runs scored. */
export interface ReviewSide {
  runId: string;
  config: string;
  model: string;
  scores: ReviewScores;
  /** The micro-averaged F1 with its 95% bootstrap interval over the cases. */
  f1: BootstrapInterval;
}

export interface ReviewCaseComparison {
  id: string;
  /** Each side's case F1 (`caseF1`); recall null on a case with no defect. */
  baseline: { f1: number | null; recall: number | null };
  candidate: { f1: number | null; recall: number | null };
  change: 'better' | 'worse' | 'same';
}

export interface ReviewComparison {
  baseline: ReviewSide;
  candidate: ReviewSide;
  cases: ReviewCaseComparison[];
  onlyInBaseline: string[];
  onlyInCandidate: string[];
  /** The candidate's micro F1 minus the baseline's (0 when either has none). */
  delta: number;
  /** The paired sign test over the cases' F1 (the gate's), and over their recall. */
  test: SignTest;
  recallTest: SignTest;
}

/**
 * A case's F1 as the paired test reads it: 2·matched / (defects + findings), which is the
 * harmonic mean of precision and recall where both exist and 0 where one side is empty and the
 * other is not (a clean pull request with a finding, or defects with no finding). Null only when
 * there was nothing to find and nothing was found: the case says nothing of the reviewer.
 */
export function caseF1(c: Pick<ReviewCaseCounts, 'expected' | 'found' | 'matched'>): number | null {
  const total = c.expected + c.found;
  return total === 0 ? null : (2 * c.matched) / total;
}

const recallOf = (c: ReviewCaseCounts) => (c.expected === 0 ? null : c.matched / c.expected);

/** Micro-averaged scores over cases (pairs, findings and defects summed). */
export const reviewScoresOf = (cases: readonly ReviewCaseCounts[]): ReviewScores =>
  totalScores(cases);

/** The micro F1 of cases with its 95% bootstrap interval (cases resampled). */
export function reviewF1Interval(cases: readonly ReviewCaseCounts[]): BootstrapInterval {
  return bootstrapInterval(cases, (sample) => reviewScoresOf(sample).f1);
}

const differences = (pairs: [number | null, number | null][]) =>
  pairs.flatMap(([a, b]) => (a === null || b === null ? [] : [b - a]));

/** Compares two reviewer runs of a labelled set case by case (by case id). */
export function compareReviewRuns(
  baseline: ReviewRunRecord,
  candidate: ReviewRunRecord,
): ReviewComparison {
  const theirs = new Map(candidate.cases.map((c) => [c.id, c]));
  const common = baseline.cases.filter((c) => theirs.has(c.id));
  const commonIds = new Set(common.map((c) => c.id));
  const cases = common
    .map((before): ReviewCaseComparison => {
      const after = theirs.get(before.id) as ReviewCaseCounts;
      const [b, a] = [caseF1(before), caseF1(after)];
      const diff = (a ?? 0) - (b ?? 0);
      return {
        id: before.id,
        baseline: { f1: b, recall: recallOf(before) },
        candidate: { f1: a, recall: recallOf(after) },
        change: diff > 0 ? 'better' : diff < 0 ? 'worse' : 'same',
      };
    })
    .sort((x, y) => x.id.localeCompare(y.id));
  const side = (run: ReviewRunRecord): ReviewSide => {
    const mine = run.cases.filter((c) => commonIds.has(c.id));
    return {
      runId: run.runId,
      config: run.config,
      model: run.model,
      scores: reviewScoresOf(mine),
      f1: reviewF1Interval(mine),
    };
  };
  const [before, after] = [side(baseline), side(candidate)];
  return {
    baseline: before,
    candidate: after,
    cases,
    onlyInBaseline: baseline.cases.filter((c) => !theirs.has(c.id)).map((c) => c.id),
    onlyInCandidate: candidate.cases.filter((c) => !commonIds.has(c.id)).map((c) => c.id),
    delta: (after.scores.f1 ?? 0) - (before.scores.f1 ?? 0),
    test: signTest(differences(cases.map((c) => [c.baseline.f1, c.candidate.f1]))),
    recallTest: signTest(differences(cases.map((c) => [c.baseline.recall, c.candidate.recall]))),
  };
}

const points = (rate: number) => `${(rate * 100).toFixed(1)} points`;

/**
 * The gate on a reviewer change: refused when the micro F1 drops more than `maxDrop` and the
 * one-sided sign test over the cases' F1 says the drop is significant at `alpha` (the same rule
 * and defaults as the resolve rate's); always refused when the runs share no scored case.
 */
export function reviewGateVerdict(comparison: ReviewComparison, policy: GatePolicy): GateVerdict {
  const { delta } = comparison;
  const { pWorse: pValue, better, worse } = comparison.test;
  if (comparison.cases.length === 0)
    return { verdict: 'refuse', reason: 'the runs share no scored case', delta, pValue };
  const cases = `${worse} case(s) worse, ${better} better`;
  const p = `p = ${pValue.toPrecision(2)}`;
  if (delta < -policy.maxDrop && pValue < policy.alpha)
    return {
      verdict: 'refuse',
      reason: `F1 down ${points(-delta)} (more than ${points(policy.maxDrop)}), ${cases}, ${p} < ${policy.alpha}`,
      delta,
      pValue,
    };
  const why =
    delta < -policy.maxDrop
      ? `down ${points(-delta)} but not significant (${p})`
      : `${delta < 0 ? 'down' : 'up'} ${points(Math.abs(delta))}`;
  return { verdict: 'accept', reason: `F1 ${why}, ${cases}`, delta, pValue };
}
