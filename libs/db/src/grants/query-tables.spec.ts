import { describe, expect, it } from '@jest/globals';
import ts from 'typescript';
import { queryTables } from './query-tables.js';

const TABLES = new Set(['runs', 'threads', 'deliveries', 'checkpoints', 'checkpoint_blobs']);

function tablesOf(code: string) {
  const source = ts.createSourceFile('x.ts', code, ts.ScriptTarget.Latest, true);
  const found = queryTables(
    source,
    new Set([...TABLES, 'checkpoint_migrations', 'checkpoint_writes']),
  );
  return {
    reads: [...found.reads].sort(),
    writes: [...found.writes].sort(),
    unmapped: found.unmapped,
  };
}

describe('queryTables', () => {
  it('reads Kysely calls: selects and joins read, inserts, updates and deletes write', () => {
    expect(
      tablesOf(`
        db.selectFrom('runs as r').innerJoin('threads as t', 't.id', 'r.thread_id');
        db.insertInto('deliveries').values({});
        db.selectFrom(['no_such_table']);`),
    ).toEqual({ reads: ['runs', 'threads'], writes: ['deliveries'], unmapped: undefined });
  });

  it('takes a read that locks rows as a write (PostgreSQL asks UPDATE for FOR UPDATE)', () => {
    expect(
      tablesOf(`
        async function claim() { return db.selectFrom('runs').forUpdate().skipLocked(); }
        async function look() { return db.selectFrom('threads'); }`),
    ).toMatchObject({ reads: ['threads'], writes: ['runs'] });
  });

  it('reads sql templates', () => {
    expect(
      tablesOf(
        'const a = sql`select * from runs join threads on true where x = ${1}`;' +
          'const b = sql`update deliveries set settled_at = now()`;',
      ),
    ).toMatchObject({ reads: ['runs', 'threads'], writes: ['deliveries'] });
    expect(tablesOf('sql`select id from runs for update`')).toMatchObject({ writes: ['runs'] });
  });

  it("knows LangGraph's checkpointer, and no other client given the connection string", () => {
    expect(
      tablesOf('PostgresSaver.fromConnString(await database.connectionString())').writes,
    ).toEqual(['checkpoint_blobs', 'checkpoint_migrations', 'checkpoint_writes', 'checkpoints']);
    expect(tablesOf('new pg.Client(await database.connectionString())').unmapped).toMatch(
      /another client/,
    );
  });
});
