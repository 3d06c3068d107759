import type { Flip, RunComparison, RunSide } from '../compare/compare-runs.js';

/** Escapes text for SVG: run ids, config names and task ids come from users. */
function escape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const FLIP_COLOURS: Record<Flip, string> = {
  gained: '#2e7d32',
  lost: '#c62828',
  kept: '#90a4ae',
  still_unresolved: '#eceff1',
};

const WIDTH = 640;
const BAR_TOP = 40;
const BAR_HEIGHT = 200;

function bar(s: RunSide, index: number): string {
  const x = 120 + index * 220;
  const y = (rate: number) => BAR_TOP + BAR_HEIGHT * (1 - rate);
  const label = `${escape(s.runId)} (${escape(s.config)})`;
  return [
    `<rect x="${x}" y="${y(s.resolve.rate).toFixed(1)}" width="120" height="${(BAR_HEIGHT * s.resolve.rate).toFixed(1)}" fill="${index === 0 ? '#607d8b' : '#1e88e5'}"/>`,
    `<line x1="${x + 60}" x2="${x + 60}" y1="${y(s.resolve.high).toFixed(1)}" y2="${y(s.resolve.low).toFixed(1)}" stroke="#212121" stroke-width="2"/>`,
    `<text x="${x + 60}" y="${BAR_TOP + BAR_HEIGHT + 18}" text-anchor="middle">${label}</text>`,
    `<text x="${x + 60}" y="${(y(s.resolve.high) - 6).toFixed(1)}" text-anchor="middle">${(s.resolve.rate * 100).toFixed(1)}%</text>`,
  ].join('\n  ');
}

/**
 * The comparison as an SVG image: each run's resolve rate with its 95% interval, and one cell per
 * task coloured by its flip (lost red, gained green), each titled with its task id.
 */
export function comparisonChart(comparison: RunComparison): string {
  const cell = Math.max(
    4,
    Math.min(24, Math.floor((WIDTH - 40) / Math.max(1, comparison.tasks.length))),
  );
  const stripTop = BAR_TOP + BAR_HEIGHT + 50;
  const cells = comparison.tasks.map(
    (t, i) =>
      `<rect x="${20 + i * cell}" y="${stripTop}" width="${cell - 1}" height="16" fill="${FLIP_COLOURS[t.flip]}"><title>${escape(t.taskId)}: ${t.flip}</title></rect>`,
  );
  const height = stripTop + 40;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="sans-serif" font-size="12">
  <text x="20" y="20" font-size="14">Resolve rate (95% CI) and per-task flips</text>
  ${bar(comparison.baseline, 0)}
  ${bar(comparison.candidate, 1)}
  ${cells.join('\n  ')}
  <text x="20" y="${stripTop + 32}">lost ${comparison.tasks.filter((t) => t.flip === 'lost').length}, gained ${comparison.tasks.filter((t) => t.flip === 'gained').length}, sign test p = ${comparison.test.pValue.toPrecision(2)}</text>
</svg>
`;
}
