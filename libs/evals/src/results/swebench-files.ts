import type { EvalRun } from './eval-run.js';

/** One prediction as SWE-bench's harness and SWE-agent's `preds.json` hold it. */
export interface Prediction {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
}

/**
 * `preds.json`: per task, the patch of its first resolved attempt, else of its first attempt
 * (the one a single-attempt run would have submitted), keyed by task id.
 */
export function predictionsOf(run: EvalRun): Record<string, Prediction> {
  const predictions: Record<string, Prediction> = {};
  for (const task of run.tasks) {
    const chosen = task.attempts.find((a) => a.resolved) ?? task.attempts[0];
    predictions[task.taskId] = {
      instance_id: task.taskId,
      model_name_or_path: `${run.config} (${run.model})`,
      model_patch: chosen?.patch ?? '',
    };
  }
  return predictions;
}

/** `results.json` in the shape of SWE-bench's evaluation report (a task counts when any attempt resolved it). */
export interface ResultsReport {
  total_instances: number;
  submitted_instances: number;
  completed_instances: number;
  resolved_instances: number;
  unresolved_instances: number;
  empty_patch_instances: number;
  error_instances: number;
  resolved_ids: string[];
  unresolved_ids: string[];
  empty_patch_ids: string[];
  error_ids: string[];
}

const ERROR_EXIT = /^exit_(error|api|format|environment)/;

export function resultsReportOf(run: EvalRun): ResultsReport {
  const ids = (keep: (task: EvalRun['tasks'][number]) => boolean) =>
    run.tasks
      .filter(keep)
      .map((t) => t.taskId)
      .sort();
  const resolved = ids((t) => t.attempts.some((a) => a.resolved));
  const empty = ids((t) => t.attempts.every((a) => a.patch.trim() === ''));
  const errors = ids((t) => t.attempts.every((a) => ERROR_EXIT.test(a.exitStatus)));
  const unresolved = ids((t) => !t.attempts.some((a) => a.resolved));
  return {
    total_instances: run.tasks.length,
    submitted_instances: run.tasks.length - empty.length,
    completed_instances: run.tasks.length - errors.length,
    resolved_instances: resolved.length,
    unresolved_instances: unresolved.length,
    empty_patch_instances: empty.length,
    error_instances: errors.length,
    resolved_ids: resolved,
    unresolved_ids: unresolved,
    empty_patch_ids: empty,
    error_ids: errors,
  };
}
