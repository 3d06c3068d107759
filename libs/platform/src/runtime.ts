import type { Database } from '@caravel/db';
import type { Bus } from '@caravel/messaging';

/** What one process runs on: its bus, its database, and how it was started. */
export interface PlatformRuntime {
  /** The process's name on the bus and in logs, e.g. `dispatch-7f3a` or `caravel`. */
  readonly name: string;
  readonly mode: 'embedded' | 'distributed';
  readonly bus: Bus;
  readonly database: Database;
  /** Closes the bus, then the database. */
  close(): Promise<void>;
}

export function composeRuntime(parts: Omit<PlatformRuntime, 'close'>): PlatformRuntime {
  return {
    ...parts,
    async close() {
      await parts.bus.close();
      await parts.database.close();
    },
  };
}
