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
  /** How often idle consumers look for timers and other processes' publishes (default 100 ms). */
  pollIntervalMs?: number;
}

export const DEFAULT_POLL_INTERVAL_MS = 100;
/** The JetStream adapter's default too. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** The stored name of a stream or lease key within a namespace. */
export function namespaced(namespace: string, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}
