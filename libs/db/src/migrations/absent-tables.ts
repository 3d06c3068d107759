import { sql } from 'kysely';
import type { Database } from '../connection/database.types.js';

/** Which of `tables` (in the search path's schema) the database lacks, in the order given. */
export async function absentTables(
  database: Database,
  tables: readonly string[],
): Promise<string[]> {
  if (tables.length === 0) return [];
  const found = await sql<{ table: string; present: boolean }>`
    select t as table, to_regclass(quote_ident(t)) is not null as present
    from unnest(${[...tables]}::text[]) as t`.execute(database.db);
  const present = new Set(found.rows.filter((row) => row.present).map((row) => row.table));
  return tables.filter((table) => !present.has(table));
}
