import { z } from 'zod';

const prs = z.array(z.number().int()).default([]);
const byPr = z.record(z.string(), z.string()).default({});

/** One PR's result in `last_run.recent_results`. */
export const farmRecentResultSchema = z.object({
  pr: z.number().int(),
  status: z.string(),
  category: z.string().optional(),
  message: z.string().optional(),
  pr_url: z.string().optional(),
});

/** The report of the latest run, written on every save and on every exit. */
export const farmLastRunSchema = z.object({
  outcome: z.enum(['running', 'completed', 'aborted', 'crashed', 'interrupted', 'stream_failed']),
  reason: z.string().nullable(),
  started_at: z.string(),
  ended_at: z.string().nullable(),
  duration_seconds: z.number(),
  prs_seen_this_run: z.number().int(),
  pr_in_flight: z.number().int().nullable(),
  last_pr_number: z.number().int().nullable(),
  last_created_at: z.string().nullable(),
  counters: z.object({
    successful: z.number().int(),
    failed: z.number().int(),
    total_processed: z.number().int(),
  }),
  pending_retry: z.object({
    publish_failed: z.array(z.number().int()),
    claude_rate_limited: z.array(z.number().int()),
  }),
  recent_results: z.array(farmRecentResultSchema),
  detail: z.string().optional(),
  error_type: z.string().optional(),
});

/** The farm state file (`<owner>__<repo>.json`), the reference's schema. */
export const farmStateSchema = z.object({
  repo: z.string().min(1),
  processed_prs: prs,
  total_fetched: z.number().int().default(0),
  total_processed: z.number().int().default(0),
  successful: z.number().int().default(0),
  failed: z.number().int().default(0),
  last_pr_number: z.number().int().nullable().default(null),
  last_created_at: z.string().nullable().default(null),
  last_updated: z.string().default(() => new Date(0).toISOString()),
  last_run: farmLastRunSchema.nullable().default(null),
  successful_prs: byPr,
  task_pr_urls: byPr,
  publish_failed_prs: prs,
  claude_rate_limited_prs: prs,
  trivial_prs: prs,
  no_issue_prs: prs,
  no_tests_prs: prs,
  validation_failed_prs: prs,
  already_exists_prs: prs,
  rate_limit_prs: prs,
  quota_exceeded_prs: prs,
  timeout_prs: prs,
  git_error_prs: prs,
  other_failed_prs: byPr,
});

export type FarmStateJson = z.output<typeof farmStateSchema>;
export type FarmLastRun = z.output<typeof farmLastRunSchema>;
export type FarmRecentResult = z.output<typeof farmRecentResultSchema>;
