import type { ReviewComparison, ReviewSide } from './review-compare.js';

const pct = (value: number | null) => (value === null ? '-' : `${(value * 100).toFixed(1)}%`);

function sideRow(label: string, side: ReviewSide): string {
  const { scores, f1 } = side;
  return [
    label.padEnd(10),
    `${side.config} (${side.model})`.padEnd(40),
    pct(scores.precision).padStart(9),
    pct(scores.recall).padStart(9),
    pct(scores.f1).padStart(9),
    `[${pct(f1.low)}, ${pct(f1.high)}]`.padStart(18),
  ].join(' ');
}

/**
 * Two reviewer runs side by side for the terminal: precision, recall and F1 (micro-averaged, F1
 * with its 95% bootstrap interval) over the cases both scored, the cases that got worse or better,
 * and the paired tests.
 */
export function reviewComparisonTable(comparison: ReviewComparison): string {
  const header = [
    'run'.padEnd(10),
    'configuration'.padEnd(40),
    'precision'.padStart(9),
    'recall'.padStart(9),
    'F1'.padStart(9),
    'F1 95% interval'.padStart(18),
  ].join(' ');
  const lines = [
    header,
    sideRow('baseline', comparison.baseline),
    sideRow('candidate', comparison.candidate),
    '',
    `cases compared: ${comparison.cases.length}`,
  ];
  for (const change of ['worse', 'better'] as const) {
    const ids = comparison.cases.filter((c) => c.change === change).map((c) => c.id);
    if (ids.length > 0) lines.push(`${change} (${ids.length}): ${ids.join(', ')}`);
  }
  if (comparison.onlyInBaseline.length + comparison.onlyInCandidate.length > 0)
    lines.push(
      `not compared (scored by one run only): ${[...comparison.onlyInBaseline, ...comparison.onlyInCandidate].join(', ')}`,
    );
  const { test, recallTest } = comparison;
  lines.push(
    `F1 change ${(comparison.delta * 100).toFixed(1)} points; sign test over cases: F1 p(worse) = ${test.pWorse.toPrecision(2)}, recall p(worse) = ${recallTest.pWorse.toPrecision(2)}`,
  );
  return `${lines.join('\n')}\n`;
}
