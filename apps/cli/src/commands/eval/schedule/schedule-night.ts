import { CARAVEL_NAMESPACE, uuidV5 } from '@caravel/contracts';
import { join } from 'node:path';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The latest start of a daily schedule at `hour` (UTC) at or before `now`. */
export function latestNight(hour: number, now: Date): Date {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), hour);
  return new Date(today <= now.getTime() ? today : today - DAY_MS);
}

/**
 * The id of a schedule's run for a night: the same on every replica and after every restart, so
 * a run resumed after a crash records into the row it started.
 */
export function nightRunId(scheduleId: string, night: Date): string {
  return uuidV5(`eval-schedule:${scheduleId}@${night.toISOString()}`, CARAVEL_NAMESPACE);
}

/** Where a night's run keeps its files (its ledger among them): `<dir>/<name>/<YYYY-MM-DDTHH>`. */
export function nightDir(root: string, name: string, night: Date): string {
  return join(root, name, night.toISOString().slice(0, 13));
}
