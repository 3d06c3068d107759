import type { Database } from '@caravel/db';
import type { BusLogger } from '../settlement/index.js';

/** Options of {@link createEmbeddedBus}. */
export interface EmbeddedBusOptions {
  /** The database that holds the log, the consumers' state and the leases. */
  database: Database;
  /** This replica's name; delivery holders and logs carry it. */
  name: string;
  /**
   * Keeps several buses on one database apart: stored stream names and lease keys are
   * prefixed with it. Buses share work and requests only within one namespace.
   */
  namespace?: string;
  logger?: BusLogger;
  /**
   * The longest an idle consumer sleeps before it looks again. It wakes earlier on every local
   * publish and settlement and when the next redelivery falls due, so this only bounds how late
   * it sees what another process did: the default is 5 minutes on PGlite (no other process can
   * open it, so the poll is only a safety net; each pass is a few queries per consumer on a
   * database that shares the event loop) and 1 s on PostgreSQL (other processes may publish to
   * the same log).
   */
  pollIntervalMs?: number;
  /**
   * Whether every statement on the database runs one after another, so an append to the log is
   * one autocommit insert (its sequence is committed before the next append takes one) instead of
   * a transaction holding a per-stream advisory lock. Default: true on PGlite (one session under a
   * mutex), false on PostgreSQL (sessions run side by side).
   */
  appendsSerialised?: boolean;
}

/** The longest an idle consumer sleeps, by database kind (see `pollIntervalMs`). */
export const DEFAULT_POLL_INTERVAL_MS = { pglite: 300_000, postgres: 1_000 } as const;
/** The JetStream adapter's default too. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** The stored name of a stream or lease key within a namespace. */
export function namespaced(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
