// The one line each bench ends with, so `npm run bench` (tools/bench/all.mjs) can print every
// bench's ratios in one table: `BENCH-SUMMARY {"bench": …, "rows": [...]}`. A row is one figure
// compared with its floor measured in the same run.
import { readFileSync } from 'node:fs';

export const SUMMARY_PREFIX = 'BENCH-SUMMARY ';

/** The 1-minute load average now: every figure is printed with it. */
export function loadAverage() {
  return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}

/**
 * A row: `what` measured at `value` (`unit`) against `floor` (what, value) measured in the same
 * run; `ratio` defaults to value / floor value; `goal` says what would be good enough and `met`
 * whether this run met it.
 */
export function row({ what, value, unit, floor, floorValue, ratio, goal, met }) {
  return {
    what,
    value,
    unit,
    floor,
    floorValue,
    ratio: ratio ?? (floorValue ? value / floorValue : null),
    goal: goal ?? null,
    met: met ?? null,
  };
}

/** Prints the summary line (after the bench's own report). */
export function printSummary(bench, rows) {
  process.stdout.write(
    `${SUMMARY_PREFIX}${JSON.stringify({ bench, load: loadAverage(), rows })}\n`,
  );
}
