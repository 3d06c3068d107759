import { AppError } from '@caravel/errors';
import {
  DEFAULT_GATE_POLICY,
  compareRuns,
  comparisonChart,
  comparisonTable,
  evalRunSchema,
  gateVerdict,
  type EvalRun,
  type GatePolicy,
  type GateVerdict,
  type RunComparison,
} from '@caravel/evals';
import { stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseFile, readJsonFile } from './json-file.js';
import { refuseDifferent, verdictText, writeComparisonJson } from './gate-verdict.js';

/** The record a suite run leaves in its output folder (what `caravel eval run` writes). */
export const EVAL_RUN_FILE = 'caravel-eval.json';

/** Reads a suite run from its file, or from the run's folder; refuses a bad one, saying why. */
export async function readEvalRun(path: string): Promise<EvalRun> {
  const file = (await stat(path).catch(() => null))?.isDirectory()
    ? join(path, EVAL_RUN_FILE)
    : path;
  const raw = await readJsonFile(
    file,
    (why) => `${file}: ${why}; an eval run is the ${EVAL_RUN_FILE} of a run's folder`,
  );
  return parseFile(evalRunSchema, raw, `${file}: not an eval run`);
}

/** A recorded run's id (what `eval run` prints and the dashboard lists). */
const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `ref` names a recorded run: a run id that is not also a file or folder here. */
export async function isRunId(ref: string): Promise<boolean> {
  return RUN_ID.test(ref) && !(await stat(ref).catch(() => null));
}

/** Reads a recorded run by its id (from the database `eval run` recorded it in). */
export type RecordedRunReader = (runId: string) => Promise<EvalRun>;

/** A run given as its file, its folder, or its id in the database. */
export async function resolveEvalRun(ref: string, recorded?: RecordedRunReader): Promise<EvalRun> {
  if (!(await isRunId(ref))) return readEvalRun(ref);
  if (!recorded)
    throw new AppError(
      'BAD_REQUEST',
      `${ref}: a run id, but no database is configured (--database-url, CARAVEL_DATABASE_URL, DATABASE_URL or CARAVEL_DATA_DIR)`,
    );
  return recorded(ref);
}

export interface CompareOptions {
  /** Each a run's file, folder, or recorded id (read with `recorded`). */
  baseline: string;
  candidate: string;
  recorded?: RecordedRunReader;
  /** Where the comparison's files go (comparison.json, chart.svg); none when omitted. */
  out?: string;
  policy?: GatePolicy;
}

export interface CompareReport {
  comparison: RunComparison;
  verdict: GateVerdict;
  text: string;
  written: string[];
}

/**
 * `caravel eval compare BASELINE CANDIDATE`: the two runs task by task, the table for the
 * terminal, the gate's verdict, and with `--out` the comparison as JSON and an SVG chart.
 */
export async function compareEvalRuns(options: CompareOptions): Promise<CompareReport> {
  // One after the other: a bad input is reported the same way every time (the baseline first).
  const baseline = await resolveEvalRun(options.baseline, options.recorded);
  const candidate = await resolveEvalRun(options.candidate, options.recorded);
  return reportComparison(baseline, candidate, options);
}

/** The comparison of two runs read already, its verdict, its text and (with `out`) its files. */
export async function reportComparison(
  baseline: EvalRun,
  candidate: EvalRun,
  options: Pick<CompareOptions, 'out' | 'policy'>,
): Promise<CompareReport> {
  refuseDifferent('suites', baseline.suite, candidate.suite);
  const comparison = compareRuns(baseline, candidate);
  const verdict = gateVerdict(comparison, options.policy ?? DEFAULT_GATE_POLICY);
  const text = verdictText(comparisonTable(comparison), verdict);
  const written: string[] = [];
  if (options.out) {
    const svg = join(options.out, 'chart.svg');
    written.push(await writeComparisonJson(options.out, { comparison, verdict }));
    await writeFile(svg, comparisonChart(comparison));
    written.push(svg);
  }
  return { comparison, verdict, text, written };
}
