import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../generated/types.js';

/** Where the database reports what it does at start (migrations applied, sockets opened). */
export interface DatabaseLogger {
  log(message: string): void;
  warn(message: string): void;
}

/** An open database: PostgreSQL (distributed) or PGlite (embedded), same SQL and same JS types. */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Kysely<DB>;
  /**
   * A pg-wire connection string other pg clients (e.g. LangGraph's PostgresSaver) can use; for
   * PGlite it starts @electric-sql/pglite-socket's server on 127.0.0.1 (random port, several
   * connections) on first call.
   */
  connectionString(): Promise<string>;
  /**
   * The database for writes whose commit need not wait for its log to reach the disk (PostgreSQL
   * `synchronous_commit = off`, on connections of their own, opened at the first call): a crash
   * of the database server may lose the last such commits (a fraction of a second's), never
   * half of one, and a commit is seen by every other session at once. Only for records another
   * durable record covers, such as the ingress's claims of webhook deliveries (the bus and
   * dispatch's inbox drop a repeat whose claim was lost). PGlite: `db` (it never flushes).
   */
  relaxedCommits(): Kysely<DB>;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (trx: Transaction<DB>) => Promise<T>): Promise<T>;
  /**
   * The connection pool's figures (open, idle, queries waiting for a connection), or null where
   * there is no pool (PGlite: one in-process database).
   */
  pool(): { open: number; idle: number; waiting: number } | null;
  /** Resolves when the database answers a trivial query. */

  ping(): Promise<void>;
  /** Closes every connection (and PGlite's socket server); safe to call twice. */
  close(): Promise<void>;
}

export const silentLogger: DatabaseLogger = { log: () => undefined, warn: () => undefined };
