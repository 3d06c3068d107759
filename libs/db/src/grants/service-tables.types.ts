/** The tables one service's process may touch: written (or locked) ones, and those only read. */
export interface TableUse {
  readonly writes: readonly string[];
  readonly reads: readonly string[];
}

/** The migration runner's bookkeeping table: every service reads it to check it is migrated. */
export const MIGRATIONS_TABLE = '_caravel_migrations';

/**
 * LangGraph's PostgreSQL checkpointer's tables (`@langchain/langgraph-checkpoint-postgres`),
 * outside the Prisma schema: created by its `setup()`, which `caravel db migrate` runs as the owner.
 */
export const LANGGRAPH_TABLES = [
  'checkpoint_blobs',
  'checkpoint_migrations',
  'checkpoint_writes',
  'checkpoints',
] as const;
