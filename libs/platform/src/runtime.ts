import type { Database } from '@caravel/db';
import type { Bus } from '@caravel/messaging';

/** What one process runs on: its bus, its database, and how it was started. */
export interface PlatformRuntime {
  /** The process's name on the bus and in logs, e.g. `dispatch-7f3a` or `caravel`. */
  readonly name: string;
  readonly mode: 'embedded' | 'distributed';
  readonly bus: Bus;
  readonly database: Database;
  /**
   * Whether this process changes the database's schema (it migrated at start: the embedded host,
   * or a service with `DATABASE_MIGRATE=true`), or only uses it on a role without DDL
   * (`DATABASE_MIGRATE=false`): then no DDL of a library's (LangGraph's checkpointer) runs either.
   */
  readonly ownsSchema: boolean;
  /** Closes the bus, then the database. */
  close(): Promise<void>;
}

/** A runtime of its parts; it owns the schema unless told (`ownsSchema: false`). */
export function composeRuntime(
  parts: Omit<PlatformRuntime, 'close' | 'ownsSchema'> & { ownsSchema?: boolean },
): PlatformRuntime {
  return {
    ...parts,
    ownsSchema: parts.ownsSchema ?? true,
    async close() {
      await parts.bus.close();
      await parts.database.close();
    },
  };
}
