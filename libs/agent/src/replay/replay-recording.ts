import { ReplayFinishedV1, RunStartedV1, type RepositoryRef } from '@caravel/contracts';
import { AppError, isAppError } from '@caravel/errors';
import type { RunEventInput } from '../trajectory/from-events.parse.js';
import { trajectoryFromEvents } from '../trajectory/from-events.js';
import { actionsFromTraj, type RecordedAction } from './replay-source.js';

/** What a replay needs of a recorded run: its calls, its starting point and its submission. */
export interface ReplayRecording {
  actions: RecordedAction[];
  repository?: RepositoryRef;
  branch: string | null;
  baseCommit: string | null;
  submission: string | null;
}

/** Whether the run's events already hold this replay's verdict (a redelivered request). */
export function replayFinished(rows: readonly RunEventInput[], replayId: string): boolean {
  return rows.some(
    (row) =>
      row.type === ReplayFinishedV1.type &&
      (row.data as { replayId?: unknown } | null)?.replayId === replayId,
  );
}

/**
 * Reads a finished run's recording from its indexed events (its `.traj`, as `caravel replay`
 * reads it). PRECONDITION_FAILED when they make no trajectory or hold no call to replay.
 */
export function recordingOf(runId: string, rows: readonly RunEventInput[]): ReplayRecording {
  const ownRows = rows.filter((row) => row.type.startsWith('evt.run.'));
  let traj: ReturnType<typeof trajectoryFromEvents>;
  try {
    traj = trajectoryFromEvents(ownRows);
  } catch (error) {
    const why = isAppError(error) ? error.message : String(error);
    throw new AppError('PRECONDITION_FAILED', `run ${runId} has no trajectory to replay: ${why}`);
  }
  const actions = actionsFromTraj(traj, `run ${runId}`);
  if (actions.length === 0)
    throw new AppError('PRECONDITION_FAILED', `run ${runId} made no tool call to replay`);
  const started = ownRows.find((row) => row.type === RunStartedV1.type);
  const start = RunStartedV1.dataSchema.parse(started?.data);
  return {
    actions,
    ...(start.repository ? { repository: start.repository } : {}),
    branch: start.branch ?? null,
    baseCommit: start.baseCommit ?? null,
    submission: traj.info.submission ?? null,
  };
}
