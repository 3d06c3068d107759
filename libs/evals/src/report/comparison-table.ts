import type { RunComparison, RunSide } from '../compare/compare-runs.js';

const percent = (rate: number) => `${(rate * 100).toFixed(1)}%`;

function row(label: string, values: readonly string[], widths: readonly number[]): string {
  return [
    label.padEnd(widths[0] ?? 0),
    ...values.map((v, i) => v.padStart(widths[i + 1] ?? 0)),
  ].join('  ');
}

function figures(s: RunSide): string[] {
  return [
    `${percent(s.resolve.rate)} [${percent(s.resolve.low)}, ${percent(s.resolve.high)}]`,
    `${s.resolve.successes}/${s.resolve.trials}`,
    `$${s.costUsd.mean.toFixed(3)} / $${s.costUsd.p90.toFixed(3)}`,
    `${s.modelCalls.p50} / ${s.modelCalls.p90}`,
    `${(s.wallMs.p50 / 1000).toFixed(1)} s / ${(s.wallMs.p90 / 1000).toFixed(1)} s`,
  ];
}

/** The comparison as plain text for a terminal: the two runs side by side, then the flips. */
export function comparisonTable(comparison: RunComparison): string {
  const { baseline, candidate } = comparison;
  const header = [
    'resolved (95% CI)',
    'attempts',
    'cost mean / p90',
    'calls p50 / p90',
    'time p50 / p90',
  ];
  const rows = [
    [`${baseline.runId} (${baseline.config})`, ...figures(baseline)],
    [`${candidate.runId} (${candidate.config})`, ...figures(candidate)],
  ];
  const widths = [0, ...header].map((_, i) =>
    Math.max(...[['run', ...header], ...rows].map((r) => (r[i] ?? '').length)),
  );
  const lines = [
    row('run', header, widths),
    ...rows.map(([label, ...rest]) => row(label ?? '', rest, widths)),
  ];
  const lost = comparison.tasks.filter((t) => t.flip === 'lost').map((t) => t.taskId);
  const gained = comparison.tasks.filter((t) => t.flip === 'gained').map((t) => t.taskId);
  const { better, worse, pValue } = comparison.test;
  lines.push(
    '',
    `change: ${comparison.delta >= 0 ? '+' : ''}${(comparison.delta * 100).toFixed(1)} points over ${comparison.tasks.length} task(s); sign test ${better} better, ${worse} worse, p = ${pValue.toPrecision(2)}`,
    `lost (${lost.length}): ${lost.join(', ') || '-'}`,
    `gained (${gained.length}): ${gained.join(', ') || '-'}`,
  );
  if (comparison.onlyInBaseline.length || comparison.onlyInCandidate.length) {
    lines.push(
      `not compared: only in ${baseline.runId}: ${comparison.onlyInBaseline.join(', ') || '-'}; only in ${candidate.runId}: ${comparison.onlyInCandidate.join(', ') || '-'}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
