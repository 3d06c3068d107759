import { AppError } from '@caravel/errors';
import {
  DEFAULT_GATE_POLICY,
  compareReviewRuns,
  reviewComparisonTable,
  reviewEvalResultSchema,
  reviewGateVerdict,
  type GatePolicy,
  type GateVerdict,
  type ReviewComparison,
  type ReviewRunRecord,
} from '@caravel/evals';
import { stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { reviewRunOfRecords } from '../review-eval/review-eval-records.js';
import { REVIEW_EVAL_FILE } from '../review-eval/review-eval-file.js';
import { isRunId } from './eval-compare.command.js';
import type { EvalRecords } from './eval-records.js';
import { parseFile, readJsonFile } from './json-file.js';
import { refuseDifferent, verdictText, writeComparisonJson } from './gate-verdict.js';

/** A reviewer run's file: `review-eval.json`, or the run's folder holding it; null otherwise. */
async function reviewFileOf(ref: string): Promise<string | null> {
  const found = await stat(ref).catch(() => null);
  if (found?.isDirectory()) {
    const file = join(ref, REVIEW_EVAL_FILE);
    return (await stat(file).catch(() => null)) ? file : null;
  }
  return found && basename(ref) === REVIEW_EVAL_FILE ? ref : null;
}

async function readReviewFile(file: string): Promise<ReviewRunRecord> {
  const raw = await readJsonFile(
    file,
    (why) => `${file}: ${why}; a reviewer run is its ${REVIEW_EVAL_FILE}`,
  );
  const result = parseFile(reviewEvalResultSchema, raw, `${file}: not a reviewer run`);
  return {
    runId: result.runId ?? file,
    set: result.set,
    config: result.config ?? result.model,
    model: result.model,
    cases: result.cases.flatMap((c) =>
      c.score
        ? [{ id: c.id, expected: c.score.expected, found: c.score.found, matched: c.score.matched }]
        : [],
    ),
  };
}

/** A reviewer run given as its file, its folder or its recorded id; null when it is none. */
export async function reviewRunOf(
  ref: string,
  records: EvalRecords | undefined,
): Promise<ReviewRunRecord | null> {
  if (records && (await isRunId(ref))) {
    const run = await records.runs.find(ref);
    if (run?.kind !== 'review') return null;
    return reviewRunOfRecords(run, await records.reviewCases.casesOf(ref));
  }
  const file = await reviewFileOf(ref);
  return file ? readReviewFile(file) : null;
}

export interface ReviewCompareReport {
  comparison: ReviewComparison;
  verdict: GateVerdict;
  text: string;
  written: string[];
}

/**
 * `caravel eval compare` on two reviewer runs (`review-eval` results, or runs of kind `review`):
 * precision, recall and F1 over the cases both scored, and the gate on F1 (a drop over `maxDrop`
 * significant by the sign test over the cases). Null when neither is a reviewer run; refused
 * when only one is, or when they are of different sets.
 */
export async function compareReviewRefs(
  refs: { baseline: string; candidate: string },
  records: EvalRecords | undefined,
  options: { out?: string; policy?: GatePolicy },
): Promise<ReviewCompareReport | null> {
  const baseline = await reviewRunOf(refs.baseline, records);
  const candidate = await reviewRunOf(refs.candidate, records);
  if (!baseline && !candidate) return null;
  if (!baseline || !candidate)
    throw new AppError(
      'BAD_REQUEST',
      `${baseline ? refs.candidate : refs.baseline} is not a reviewer run, ${baseline ? refs.baseline : refs.candidate} is: nothing to compare`,
    );
  refuseDifferent('sets', baseline.set, candidate.set);
  const comparison = compareReviewRuns(baseline, candidate);
  const verdict = reviewGateVerdict(comparison, options.policy ?? DEFAULT_GATE_POLICY);
  const text = verdictText(reviewComparisonTable(comparison), verdict);
  const written = options.out
    ? [await writeComparisonJson(options.out, { comparison, verdict })]
    : [];
  return { comparison, verdict, text, written };
}
