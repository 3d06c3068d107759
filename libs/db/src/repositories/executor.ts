import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../generated/types.js';

/**
 * What repository methods run on: the database itself or a transaction from
 * `Database.transaction`, so a handler can commit inbox + effects + outbox together.
 */
export type Executor = Kysely<DB>;

/** The caller's clock when given (an injected Clock in tests), else the database's. */
export function timeOr(at: Date | undefined): Date | RawBuilder<Date> {
  return at ?? sql<Date>`now()`;
}

/** Runs `work` in the executor's transaction, or in a new one. */
export function inTransaction<T>(
  executor: Executor,
  work: (trx: Executor) => Promise<T>,
): Promise<T> {
  return executor.isTransaction ? work(executor) : executor.transaction().execute(work);
}
