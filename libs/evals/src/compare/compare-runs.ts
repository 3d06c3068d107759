import { taskResolveRate, type EvalRun } from '../results/eval-run.js';
import { distribution, type Distribution } from '../stats/distribution.js';
import { proportion, type Proportion } from '../stats/proportion.js';
import { signTest, type SignTest } from '../stats/sign-test.js';

/** One side of a comparison, over the tasks both runs attempted. */
export interface RunSide {
  runId: string;
  config: string;
  model: string;
  /** Resolved attempts over all attempts, with its 95% interval. */
  resolve: Proportion;
  costUsd: Distribution;
  modelCalls: Distribution;
  wallMs: Distribution;
}

/**
 * A task's change between the runs, by majority of its attempts: `lost` was resolved and is not
 * any more, `gained` the reverse.
 */
export type Flip = 'gained' | 'lost' | 'kept' | 'still_unresolved';

export interface TaskComparison {
  taskId: string;
  baseline: number;
  candidate: number;
  flip: Flip;
}

export interface RunComparison {
  baseline: RunSide;
  candidate: RunSide;
  tasks: TaskComparison[];
  /** Tasks only one run attempted: left out of every figure above. */
  onlyInBaseline: string[];
  onlyInCandidate: string[];
  /** The candidate's resolve rate minus the baseline's (common tasks, all attempts). */
  delta: number;
  /** The paired test over the tasks' resolve rates. */
  test: SignTest;
}

function side(run: EvalRun, taskIds: ReadonlySet<string>): RunSide {
  const attempts = run.tasks.filter((t) => taskIds.has(t.taskId)).flatMap((t) => t.attempts);
  return {
    runId: run.runId,
    config: run.config,
    model: run.model,
    resolve: proportion(attempts.filter((a) => a.resolved).length, attempts.length),
    costUsd: distribution(attempts.map((a) => a.costUsd)),
    modelCalls: distribution(attempts.map((a) => a.modelCalls)),
    wallMs: distribution(attempts.map((a) => a.wallMs)),
  };
}

function flipOf(baseline: number, candidate: number): Flip {
  const before = baseline > 0.5;
  const after = candidate > 0.5;
  if (before && !after) return 'lost';
  if (!before && after) return 'gained';
  return after ? 'kept' : 'still_unresolved';
}

/** Compares two runs of a suite task by task (by task id). */
export function compareRuns(baseline: EvalRun, candidate: EvalRun): RunComparison {
  const candidateTasks = new Map(candidate.tasks.map((t) => [t.taskId, t]));
  const baselineIds = new Set(baseline.tasks.map((t) => t.taskId));
  const common = new Set([...baselineIds].filter((id) => candidateTasks.has(id)));
  const tasks: TaskComparison[] = [];
  for (const task of baseline.tasks) {
    const other = candidateTasks.get(task.taskId);
    if (!other) continue;
    const before = taskResolveRate(task);
    const after = taskResolveRate(other);
    tasks.push({
      taskId: task.taskId,
      baseline: before,
      candidate: after,
      flip: flipOf(before, after),
    });
  }
  tasks.sort((a, b) => a.taskId.localeCompare(b.taskId));
  const baselineSide = side(baseline, common);
  const candidateSide = side(candidate, common);
  return {
    baseline: baselineSide,
    candidate: candidateSide,
    tasks,
    onlyInBaseline: [...baselineIds].filter((id) => !common.has(id)).sort(),
    onlyInCandidate: [...candidateTasks.keys()].filter((id) => !common.has(id)).sort(),
    delta: candidateSide.resolve.rate - baselineSide.resolve.rate,
    test: signTest(tasks.map((t) => t.candidate - t.baseline)),
  };
}
