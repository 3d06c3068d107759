import type { ReviewEvalCase, ReviewEvalResult } from './review-result.js';
import type { ReviewScores } from './review-score.js';
import type { ExpectedDefect } from './review-set.js';

const percent = (rate: number | null) => (rate === null ? '-' : `${(rate * 100).toFixed(1)}%`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const HEADER = ['defects', 'findings', 'matched', 'precision', 'recall', 'F1', 'calls', 'time'];

function figures(s: ReviewScores, calls: number, wallMs: number): string[] {
  return [
    String(s.expected),
    String(s.found),
    String(s.matched),
    percent(s.precision),
    percent(s.recall),
    percent(s.f1),
    String(calls),
    seconds(wallMs),
  ];
}

function caseRow(c: ReviewEvalCase): string[] {
  if (!c.score) return [c.id, ...HEADER.map(() => '-')];
  return [c.id, ...figures(c.score, c.modelCalls, c.wallMs)];
}

/** `src/a.ts:10-12`, `src/a.ts:10`, or the file alone. */
export function placeOf(place: {
  file: string;
  startLine?: number | null;
  endLine?: number | null;
  side?: 'RIGHT' | 'LEFT';
}): string {
  const { startLine, endLine } = place;
  const left = place.side === 'LEFT' ? ' (LEFT)' : '';
  if (startLine === undefined || startLine === null) return place.file;
  if (endLine === undefined || endLine === null || endLine === startLine)
    return `${place.file}:${startLine}${left}`;
  return `${place.file}:${startLine}-${endLine}${left}`;
}

function details(c: ReviewEvalCase): string[] {
  if (c.error) return [`${c.id}: not reviewed: ${c.error}`];
  const score = c.score;
  if (!score) return [];
  const lines: string[] = [];
  const defect = (i: number) => placeOf(c.defects[i] as ExpectedDefect);
  const finding = (id: string) => {
    const found = c.findings.find((f) => f.id === id);
    return found ? `${placeOf(found)} ${JSON.stringify(found.title)}` : id;
  };
  if (score.missed.length) lines.push(`${c.id}: missed ${score.missed.map(defect).join(', ')}`);
  for (const id of score.falsePositives) lines.push(`${c.id}: false positive ${finding(id)}`);
  return lines;
}

/**
 * A review eval as plain text for a terminal: a row per case (defects, findings, matched pairs,
 * precision, recall, F1, model calls, time), the micro-averaged totals, then what was missed and
 * what was wrong, case by case.
 */
export function reviewEvalTable(result: ReviewEvalResult): string {
  const calls = result.cases.reduce((n, c) => n + c.modelCalls, 0);
  const wall = result.cases.reduce((n, c) => n + c.wallMs, 0);
  const rows = [
    ['case', ...HEADER],
    ...result.cases.map(caseRow),
    ['all', ...figures(result.totals, calls, wall)],
  ];
  const widths = HEADER.map((_, i) => i)
    .concat(HEADER.length)
    .map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  const render = (r: string[]) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[0] ?? 0) : cell.padStart(widths[i] ?? 0)));
  const lines = rows.map((r) => render(r).join('  ').trimEnd());
  const notes = result.cases.flatMap(details);
  const judged = result.judge ? `, judge ${result.judge}` : '';
  lines.splice(
    0,
    0,
    `${result.set}: ${result.cases.length} case(s), model ${result.model}${judged}, ` +
      `tolerance ${result.tolerance} line(s), findings from ${result.minSeverity}`,
    '',
  );
  lines.splice(lines.length - 1, 0, '-'.repeat(lines[2]?.length ?? 0));
  return `${[...lines, ...(notes.length ? ['', ...notes] : [])].join('\n')}\n`;
}
