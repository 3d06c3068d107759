import type { CompiledQuery, Kysely, KyselyPlugin } from 'kysely';
import type { DB } from '../generated/types.js';

/**
 * `db` with a count of the statements run through it that answered, for specs that check how
 * many round trips a repository makes (a transaction's BEGIN and COMMIT are not counted). Counted
 * as their results come back, so a statement compiled once and run many times (ShapedInsert)
 * counts each time it runs.
 */
export function countingStatements(db: Kysely<DB>): { db: Kysely<DB>; statements: () => number } {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => node,
    transformResult: ({ result }) => {
      statements += 1;
      return Promise.resolve(result);
    },
  };
  return { db: db.withPlugin(plugin), statements: () => statements };
}

/**
 * `db` keeping each statement run through it as compiled (SQL and parameters), for specs that
 * check how the database runs a repository's statement (`EXPLAIN ANALYZE` of the same text).
 */
export function capturingStatements(db: Kysely<DB>): {
  db: Kysely<DB>;
  statements: CompiledQuery[];
} {
  const statements: CompiledQuery[] = [];
  const plugin: KyselyPlugin = {
    transformQuery: ({ node, queryId }) => {
      statements.push(db.getExecutor().compileQuery(node, queryId));
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  return { db: db.withPlugin(plugin), statements };
}
