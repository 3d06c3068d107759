import { createHash } from 'node:crypto';

/** The window nightly analyses run in (UTC): quiet hours for most teams. */
export const NIGHTLY_WINDOW = { startHour: 5, hours: 4 } as const;

/** A repository's nightly time: hour and minute, UTC. */
export interface NightlySlot {
  hour: number;
  minute: number;
}

/**
 * A repository's nightly slot, derived from a hash of its name (case-insensitive): stable across
 * restarts and replicas without being stored, and spread over the window so repositories do not
 * all start at once.
 */
export function nightlySlot(repository: string): NightlySlot {
  const digest = createHash('sha256').update(repository.toLowerCase()).digest();
  const minuteOfWindow = digest.readUInt32BE(0) % (NIGHTLY_WINDOW.hours * 60);
  return {
    hour: NIGHTLY_WINDOW.startHour + Math.floor(minuteOfWindow / 60),
    minute: minuteOfWindow % 60,
  };
}

/** The first time strictly after `after` that falls on the repository's slot. */
export function nextNightlyRun(repository: string, after: Date): Date {
  const { hour, minute } = nightlySlot(repository);
  const next = new Date(
    Date.UTC(after.getUTCFullYear(), after.getUTCMonth(), after.getUTCDate(), hour, minute),
  );
  if (next.getTime() <= after.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}
