import { z } from 'zod';
import { expectedDefectSchema } from './review-set.js';
import { REVIEW_SEVERITIES, totalScores, type ReviewScores } from './review-score.js';

const ratio = z.number().min(0).max(1).nullable();

const scoresSchema = z.object({
  expected: z.number().int().nonnegative(),
  found: z.number().int().nonnegative(),
  matched: z.number().int().nonnegative(),
  precision: ratio,
  recall: ratio,
  f1: ratio,
});

/** A case's score as recorded (`scoreCase`'s answer). */
export const caseScoreSchema = scoresSchema.extend({
  matches: z.array(z.object({ defect: z.number().int().nonnegative(), finding: z.string() })),
  missed: z.array(z.number().int().nonnegative()),
  falsePositives: z.array(z.string()),
  ignored: z.array(z.string()),
});

/** A finding the reviewer filed, as the result keeps it. */
export const reviewedFindingSchema = z.object({
  id: z.string().min(1),
  file: z.string().min(1),
  startLine: z.number().int().positive().nullable(),
  endLine: z.number().int().positive().nullable(),
  side: z.enum(['RIGHT', 'LEFT']),
  severity: z.enum(REVIEW_SEVERITIES),
  confidence: z.string(),
  category: z.string(),
  title: z.string(),
  description: z.string(),
});

/** One case of a review eval: what was reviewed, what the reviewer found, how it scored. */
export const reviewEvalCaseSchema = z.object({
  id: z.string().min(1),
  baseSha: z.string().nullable(),
  headSha: z.string().nullable(),
  defects: z.array(expectedDefectSchema),
  findings: z.array(reviewedFindingSchema),
  /** The judge's answer on each pair whose places matched (empty without a judge). */
  judged: z.array(
    z.object({
      defect: z.number().int().nonnegative(),
      finding: z.string(),
      accepted: z.boolean(),
      answer: z.string(),
    }),
  ),
  /** Null when the case could not be reviewed (`error` says why): it is not scored. */
  score: caseScoreSchema.nullable(),
  modelCalls: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  costUsd: z.number().nonnegative(),
  wallMs: z.number().nonnegative(),
  error: z.string().optional(),
});

/** What `caravel review-eval` writes: `review-eval.json`. */
export const reviewEvalResultSchema = z.object({
  version: z.literal(1),
  /** The run's id (its row in the database when one recorded it); older files have none. */
  runId: z.string().min(1).optional(),
  /** The configuration's name (default: the model reference). */
  config: z.string().min(1).optional(),
  set: z.string().min(1),
  model: z.string().min(1),
  judge: z.string().nullable(),
  tolerance: z.number().int().nonnegative(),
  minSeverity: z.enum(REVIEW_SEVERITIES),
  createdAt: z.string().min(1),
  cases: z.array(reviewEvalCaseSchema),
  /** Micro-averaged over the cases that were reviewed. */
  totals: scoresSchema,
});

export type ReviewedFinding = z.output<typeof reviewedFindingSchema>;
export type ReviewEvalCase = z.output<typeof reviewEvalCaseSchema>;
export type ReviewEvalResult = z.output<typeof reviewEvalResultSchema>;

/** The totals of a result's cases: those scored, micro-averaged. */
export function reviewEvalTotals(cases: readonly ReviewEvalCase[]): ReviewScores {
  return totalScores(cases.flatMap((c) => (c.score ? [c.score] : [])));
}
