import type { EvalAttempt, EvalRun } from './eval-run.js';

/**
 * An attempt as a database keeps it: its task beside it, absent optional fields as null (the
 * shape of `@caravel/db`'s `EvalAttemptRow`).
 */
export type RecordedAttempt = Omit<EvalAttempt, 'trajPath' | 'error'> & {
  taskId: string;
  trajPath: string | null;
  error: string | null;
};

/** What a recorded run says of itself (the shape of `@caravel/db`'s `EvalRunRow`). */
export interface RecordedRun {
  id: string;
  suite: string;
  config: string;
  model: string;
  createdAt: Date;
}

/** Attempts finished in a run, as rows to record. */
export function recordedAttemptsOf(
  finished: readonly { taskId: string; result: EvalAttempt }[],
): RecordedAttempt[] {
  return finished.map(({ taskId, result: { trajPath, error, ...attempt } }) => ({
    ...attempt,
    taskId,
    trajPath: trajPath ?? null,
    error: error ?? null,
  }));
}

/**
 * The run record (`caravel-eval.json`'s shape) of a recorded run: tasks in name order, attempts
 * in order; a task with no attempt recorded is not in it.
 */
export function evalRunOfRecords(run: RecordedRun, attempts: readonly RecordedAttempt[]): EvalRun {
  const byTask = new Map<string, EvalAttempt[]>();
  for (const { taskId, trajPath, error, ...attempt } of attempts) {
    const record: EvalAttempt = {
      ...attempt,
      ...(trajPath === null ? {} : { trajPath }),
      ...(error === null ? {} : { error }),
    };
    byTask.set(taskId, [...(byTask.get(taskId) ?? []), record]);
  }
  const tasks = [...byTask.keys()]
    .sort((a, b) => a.localeCompare(b))
    .map((taskId) => ({
      taskId,
      attempts: (byTask.get(taskId) ?? []).sort((a, b) => a.attempt - b.attempt),
    }));
  return {
    runId: run.id,
    suite: run.suite,
    config: run.config,
    model: run.model,
    createdAt: run.createdAt.toISOString(),
    tasks,
  };
}
