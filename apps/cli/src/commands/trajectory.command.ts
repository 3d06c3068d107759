import { trajectoryFromEvents, type Traj } from '@caravel/agent';
import { RunFinishedV1 } from '@caravel/contracts';
import { RunEventRepository, openDatabase, type RunEventRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/** The most events one thread's export reads. */
export const MAX_EVENTS = 100_000;

/** Where the platform's data is: an embedded data dir (PGlite) or a PostgreSQL URL. */
export interface EventStoreOptions {
  /** The embedded data directory (default `./.caravel`); its database is `<dir>/pgdata`. */
  dataDir?: string;
  /** A PostgreSQL URL; wins over `dataDir`. */
  databaseUrl?: string;
}

/** Options of `caravel trajectory export`. */
export interface TrajectoryExportOptions extends EventStoreOptions {
  threadId: string;
  /** The run to export (default: the thread's last finished run). */
  runId?: string;
  /** The file to write (default `<threadId>.traj` in the current directory). */
  out?: string;
}

/** One run's trajectory, read from the event index. */
export interface ThreadTrajectory {
  threadId: string;
  runId: string;
  traj: Traj;
}

/** The database a command reads: `databaseUrl`, else the embedded one of `dataDir`, which must exist. */
export async function databaseUrlOf(options: EventStoreOptions): Promise<string> {
  if (options.databaseUrl) return options.databaseUrl;
  const dataDir = resolve(options.dataDir ?? '.caravel');
  const pgdata = join(dataDir, 'pgdata');
  if (!(await stat(pgdata).catch(() => undefined))?.isDirectory()) {
    throw new AppError('NOT_FOUND', `no Caravel database at ${pgdata} (pass --data-dir)`);
  }
  return `pglite:${pgdata}`;
}

/** The run an indexed event belongs to (its column, else its data's `runId`). */
export function runIdOf(row: RunEventRow): string | null {
  const fromData = (row.data as { runId?: unknown } | null)?.runId;
  return row.runId ?? (typeof fromData === 'string' ? fromData : null);
}

function pickRun(threadId: string, rows: readonly RunEventRow[], runId?: string): string {
  if (runId !== undefined) {
    if (!rows.some((row) => runIdOf(row) === runId)) {
      throw new AppError('NOT_FOUND', `thread ${threadId} has no run ${runId}`);
    }
    return runId;
  }
  const finished = rows.filter((row) => row.type === RunFinishedV1.type).map(runIdOf);
  const last = finished.filter((id): id is string => id !== null).at(-1);
  if (last === undefined) {
    throw new AppError('PRECONDITION_FAILED', `thread ${threadId} has no finished run yet`);
  }
  return last;
}

/**
 * Reads a thread's indexed events and builds the `.traj` of one of its runs (the last finished
 * one unless `runId` is given).
 * @throws AppError NOT_FOUND for a missing database, an unknown thread or run;
 *   PRECONDITION_FAILED when the run has not finished.
 */
export async function trajectoryOfThread(
  options: EventStoreOptions & { threadId: string; runId?: string },
): Promise<ThreadTrajectory> {
  const database = await openDatabase({ url: await databaseUrlOf(options) });
  try {
    const events = new RunEventRepository(database.db);
    const rows = await events.listByThread(options.threadId, { limit: MAX_EVENTS });
    if (rows.length === 0) {
      throw new AppError('NOT_FOUND', `unknown thread ${options.threadId}: no recorded events`);
    }
    const runId = pickRun(options.threadId, rows, options.runId);
    const traj = trajectoryFromEvents(rows.filter((row) => runIdOf(row) === runId));
    return { threadId: options.threadId, runId, traj };
  } finally {
    await database.close();
  }
}

/** `caravel trajectory export`: writes one run's `.traj` and returns where. */
export async function exportTrajectory(
  options: TrajectoryExportOptions,
): Promise<ThreadTrajectory & { file: string }> {
  const found = await trajectoryOfThread(options);
  const file = resolve(options.out ?? `${options.threadId}.traj`);
  await writeFile(file, `${JSON.stringify(found.traj, null, 2)}\n`, 'utf8');
  return { ...found, file };
}
