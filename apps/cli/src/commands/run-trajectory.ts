import { trajectoryFromEvents } from '@caravel/agent';
import { RunFinishedV1 } from '@caravel/contracts';
import type { RunEventRepository, RunEventRow } from '@caravel/db';
import { writeFile } from 'node:fs/promises';
import { MAX_EVENTS, runIdOf } from './trajectory.command.js';

const WAIT_MS = 100;
const TRIES = 20;

/**
 * Writes one run's `.traj` from its indexed events, once its finished event is indexed (the run
 * row can end a moment before; at most two seconds are waited). False when the run recorded
 * nothing a trajectory can be made of (it never started).
 */
export async function writeRunTrajectory(
  events: RunEventRepository,
  threadId: string,
  runId: string,
  file: string,
): Promise<boolean> {
  let rows: RunEventRow[] = [];
  for (let tries = 0; tries < TRIES; tries += 1) {
    rows = (await events.listByThread(threadId, { limit: MAX_EVENTS })).filter(
      (row) => runIdOf(row) === runId,
    );
    if (rows.some((row) => row.type === RunFinishedV1.type)) break;
    await new Promise((resolve) => setTimeout(resolve, WAIT_MS));
  }
  let traj: ReturnType<typeof trajectoryFromEvents>;
  try {
    traj = trajectoryFromEvents(rows);
  } catch {
    return false;
  }
  await writeFile(file, `${JSON.stringify(traj, null, 2)}\n`, 'utf8');
  return true;
}
