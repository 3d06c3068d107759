import { AppError } from '@caravel/errors';
import type { Selection } from '../loop/retry-select.js';
import type { Traj, TrajAttempt } from './traj.schema.js';

function toAttempt(traj: Traj): TrajAttempt {
  const { trajectory, history, info } = traj;
  return { trajectory, history, info };
}

/**
 * The `.traj` of a retry loop, as SWE-agent's RetryAgent writes it: the winner's trajectory,
 * history and info at the top level, `info.best_attempt_idx`, `model_stats` replaced by the
 * totals of all attempts, and every attempt under `attempts`. With no winner (all attempts
 * failed) the last attempt is at the top level with no submission.
 * @throws AppError BAD_REQUEST when the selection holds no attempt.
 */
export function trajFromSelection(selection: Selection<Traj>): Traj {
  const top =
    selection.attempts.find((a) => a.index === selection.winnerIndex) ?? selection.attempts.at(-1);
  if (top === undefined)
    throw new AppError('BAD_REQUEST', 'A retry loop selection without attempts has no trajectory');
  const totals = selection.totalStats;
  return {
    ...top.trajectory,
    info: {
      ...top.trajectory.info,
      exit_status: selection.exitStatus,
      submission: selection.submission,
      model_stats: {
        instance_cost: totals.instanceCost,
        tokens_sent: totals.tokensSent,
        tokens_received: totals.tokensReceived,
        api_calls: totals.apiCalls,
      },
      ...(selection.winnerIndex === null ? {} : { best_attempt_idx: selection.winnerIndex }),
    },
    attempts: selection.attempts.map((a) => toAttempt(a.trajectory)),
  };
}
