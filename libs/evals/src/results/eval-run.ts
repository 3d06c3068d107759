import { z } from 'zod';

/** One attempt of the agent at one task, graded by the task's own tests. */
export const evalAttemptSchema = z.object({
  attempt: z.number().int().positive(),
  resolved: z.boolean(),
  /** How the run ended (`submitted`, `exit_cost`, `exit_error`...). */
  exitStatus: z.string().min(1),
  costUsd: z.number().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  wallMs: z.number().nonnegative(),
  /** The diff the attempt produced (empty when it produced none). */
  patch: z.string(),
  /** The run's SWE-agent trajectory file (`caravel eval run` writes one per attempt). */
  trajPath: z.string().optional(),
  /** Why the attempt could not be graded or run as asked (a patch that does not apply...). */
  error: z.string().optional(),
});

export const evalTaskResultSchema = z.object({
  taskId: z.string().min(1),
  attempts: z.array(evalAttemptSchema).min(1),
});

/** A suite run under one configuration: what `caravel eval run` records, one file per run. */
export const evalRunSchema = z.object({
  runId: z.string().min(1),
  suite: z.string().min(1),
  /** The configuration's name (model, effort, prompt, middleware, style) as it was proposed. */
  config: z.string().min(1),
  model: z.string().min(1),
  createdAt: z.string().min(1),
  tasks: z.array(evalTaskResultSchema),
});

export type EvalAttempt = z.output<typeof evalAttemptSchema>;
export type EvalTaskResult = z.output<typeof evalTaskResultSchema>;
export type EvalRun = z.output<typeof evalRunSchema>;

/** A task's resolve rate over its attempts (0..1). */
export function taskResolveRate(task: EvalTaskResult): number {
  return task.attempts.filter((a) => a.resolved).length / task.attempts.length;
}
