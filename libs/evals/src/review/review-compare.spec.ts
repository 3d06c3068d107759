import { DEFAULT_GATE_POLICY } from '../compare/regression-gate.js';
import { bootstrapInterval } from '../stats/bootstrap.js';
import { reviewComparisonTable } from './review-compare-table.js';
import {
  caseF1,
  compareReviewRuns,
  reviewF1Interval,
  reviewGateVerdict,
  type ReviewCaseCounts,
  type ReviewRunRecord,
} from './review-compare.js';

/** Eight cases with two defects each; `found(i)` says how many the run matched (one finding each). */
function reviewRun(id: string, matched: (i: number) => number): ReviewRunRecord {
  return {
    runId: id,
    set: 'sample',
    config: id,
    model: 'scripted:review.yaml',
    cases: Array.from({ length: 8 }, (_, i) => ({
      id: `c${i}`,
      expected: 2,
      found: 2,
      matched: matched(i),
    })),
  };
}

describe('reviewer runs compared, and the gate on F1', () => {
  const baseline = reviewRun('current', () => 2);

  it("reads a case's F1 as 2·matched over defects and findings", () => {
    expect(caseF1({ expected: 2, found: 2, matched: 1 })).toBe(0.5);
    expect(caseF1({ expected: 0, found: 1, matched: 0 })).toBe(0);
    expect(caseF1({ expected: 3, found: 0, matched: 0 })).toBe(0);
    expect(caseF1({ expected: 0, found: 0, matched: 0 })).toBeNull();
  });

  it('refuses a reviewer that misses every defect on six cases of eight (p = 1/64)', () => {
    const worse = reviewRun('cheap', (i) => (i < 2 ? 2 : 0));
    const comparison = compareReviewRuns(baseline, worse);
    expect(comparison.cases.filter((c) => c.change === 'worse').map((c) => c.id)).toEqual([
      'c2',
      'c3',
      'c4',
      'c5',
      'c6',
      'c7',
    ]);
    expect(comparison.delta).toBeCloseTo(-0.75);
    expect(comparison.test).toMatchObject({ worse: 6, better: 0 });
    expect(comparison.test.pWorse).toBeCloseTo(1 / 64, 12);
    expect(comparison.recallTest.pWorse).toBeCloseTo(1 / 64, 12);
    const verdict = reviewGateVerdict(comparison, DEFAULT_GATE_POLICY);
    expect(verdict.verdict).toBe('refuse');
    expect(verdict.reason).toMatch(
      /^F1 down 75\.0 points .* 6 case\(s\) worse, 0 better, p = 0\.016/,
    );
  });

  it('accepts a drop the cases do not make significant, and refuses when no case is shared', () => {
    const half = compareReviewRuns(
      baseline,
      reviewRun('cheap', (i) => (i % 2 === 0 ? 2 : 0)),
    );
    expect(half.test.pWorse).toBeCloseTo(1 / 16, 12);
    expect(reviewGateVerdict(half, DEFAULT_GATE_POLICY)).toMatchObject({ verdict: 'accept' });
    expect(reviewGateVerdict(half, { maxDrop: 0.05, alpha: 0.1 })).toMatchObject({
      verdict: 'refuse',
    });
    const other = { ...reviewRun('other', () => 2), cases: [] };
    expect(reviewGateVerdict(compareReviewRuns(baseline, other), DEFAULT_GATE_POLICY)).toEqual({
      verdict: 'refuse',
      reason: 'the runs share no scored case',
      delta: 0,
      pValue: 1,
    });
  });
});

describe('bootstrap intervals', () => {
  const cases: ReviewCaseCounts[] = Array.from({ length: 20 }, (_, i) => ({
    id: `c${i}`,
    expected: 1,
    found: 1,
    matched: i < 15 ? 1 : 0,
  }));

  it('brackets the micro F1 and is the same on every call', () => {
    const interval = reviewF1Interval(cases);
    expect(interval.value).toBeCloseTo(0.75);
    expect(interval.low).toBeLessThan(0.75);
    expect(interval.high).toBeGreaterThan(0.75);
    expect(interval.low).toBeGreaterThan(0.4);
    expect(reviewF1Interval(cases)).toEqual(interval);
  });

  it('has no value and the whole range with no item, and no width when every item agrees', () => {
    expect(bootstrapInterval([], () => 1)).toEqual({ value: null, low: 0, high: 1 });
    expect(bootstrapInterval([1, 1, 1], (s) => s.length / 3)).toEqual({
      value: 1,
      low: 1,
      high: 1,
    });
  });

  it('writes the table with both sides, the worse cases and the tests', () => {
    const table = reviewComparisonTable(
      compareReviewRuns(
        reviewRun('current', () => 2),
        reviewRun('cheap', (i) => (i === 0 ? 1 : 2)),
      ),
    );
    expect(table).toContain('worse (1): c0');
    expect(table).toMatch(/candidate +cheap \(scripted:review\.yaml\) +93\.8% +93\.8% +93\.8%/);
    expect(table).toContain('F1 p(worse) = 0.50, recall p(worse) = 0.50');
  });
});
