import { trajectoryFromEvents } from '@caravel/agent';
import type { RunEventRepository } from '@caravel/db';
import { writeFile } from 'node:fs/promises';
import { MAX_EVENTS, runIdOf } from './trajectory.command.js';

/**
 * Writes one run's `.traj` from its indexed events (the caller waits for the index to hold the
 * run's end). False when the run recorded nothing a trajectory can be made of (it never started).
 */
export async function writeRunTrajectory(
  events: RunEventRepository,
  threadId: string,
  runId: string,
  file: string,
): Promise<boolean> {
  const rows = (await events.listByThread(threadId, { limit: MAX_EVENTS })).filter(
    (row) => runIdOf(row) === runId,
  );
  let traj: ReturnType<typeof trajectoryFromEvents>;
  try {
    traj = trajectoryFromEvents(rows);
  } catch {
    return false;
  }
  await writeFile(file, `${JSON.stringify(traj, null, 2)}\n`, 'utf8');
  return true;
}
