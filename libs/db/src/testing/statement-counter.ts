import type { Kysely, KyselyPlugin } from 'kysely';
import type { DB } from '../generated/types.js';

/**
 * `db` with a count of the statements run through it, for specs that check how many round trips
 * a repository makes (a transaction's BEGIN and COMMIT are not counted).
 */
export function countingStatements(db: Kysely<DB>): { db: Kysely<DB>; statements: () => number } {
  let statements = 0;
  const plugin: KyselyPlugin = {
    transformQuery: ({ node }) => {
      statements += 1;
      return node;
    },
    transformResult: ({ result }) => Promise.resolve(result),
  };
  return { db: db.withPlugin(plugin), statements: () => statements };
}
