import { MemoryFS, PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../connection/database.types.js';
import { openPglite } from './open-pglite.js';
import { PREPARED_STATEMENTS_KEPT, PreparedStatements } from './prepared-statements.js';
import { statementTexts } from './schema-change.js';

const silent = { log: () => undefined, warn: () => undefined };

/** Our prepared statements the backend holds (the look-up has no parameters: it is not one). */
async function preparedCount(db: Kysely<unknown>): Promise<number> {
  const { rows } = await sql<{ count: number }>`
    select count(*)::int as count from pg_prepared_statements where name like 'caravel_kysely_%'
  `.execute(db);
  return rows[0]!.count;
}

describe('parameterised statements on PGlite', () => {
  let database: Database;
  let db: Kysely<unknown>;

  beforeAll(async () => {
    ({ database } = await openPglite(null, silent));
    db = database.db as unknown as Kysely<unknown>;
  }, 120_000);

  afterAll(async () => {
    await database.close();
  });

  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('parses a statement once however often it runs, and runs it in one exchange', async () => {
    const prepares = jest.spyOn(PGlite.prototype, 'execProtocolStream');
    const runs = jest.spyOn(PGlite.prototype, 'execProtocolRawStream');
    const answers: number[] = [];
    for (const n of [1, 2, 3]) {
      const { rows } = await sql<{ n: number }>`select ${n}::int * 10 as n`.execute(db);
      answers.push(rows[0]!.n);
    }
    expect(answers).toEqual([10, 20, 30]);
    const sent = [...prepares.mock.calls, ...runs.mock.calls].map(([message]) => message);
    expect(sent.flatMap((message) => statementTexts(message))).toEqual([
      'select $1::int * 10 as n',
    ]);
    // One exchange to prepare it, then one a run.
    expect(prepares).toHaveBeenCalledTimes(1);
    expect(runs).toHaveBeenCalledTimes(3);
  });

  it("serialises values and parses rows as PGlite's own query does", async () => {
    const exchanges = jest.spyOn(PGlite.prototype, 'execProtocolStream');
    await sql`
      create table typed_values (
        id uuid primary key, body jsonb, at timestamptz, flag boolean, big int8, tags text[],
        bytes bytea, amount numeric, note text
      )
    `.execute(db);
    const row = {
      id: '7f0c3a52-2b1e-4c55-9a43-0d2b8f6e1a10',
      body: { nested: { list: [1, 'two', null] }, quote: 'it\'s "here"' },
      at: new Date('2026-12-03T10:11:12.345Z'),
      flag: true,
      big: Number.MAX_SAFE_INTEGER,
      tags: ['a', 'b,c', 'd"e', 'NULL'],
      bytes: new Uint8Array([0, 1, 254, 255]),
      amount: '12.50',
      note: null,
    };
    await sql`insert into typed_values values (${sql.join(Object.values(row))})`.execute(db);
    const select = 'select * from typed_values where id = $1 and flag = $2 and tags = $3';
    const parameters = [row.id, true, row.tags];
    const prepared = await db.executeQuery(
      sql`select * from typed_values where id = ${row.id} and flag = ${true} and tags = ${row.tags}`.compile(
        db,
      ),
    );
    const pglite = exchanges.mock.contexts[0] as PGlite;
    const reference = await pglite.query(select, parameters, { rowMode: 'object' });
    expect(prepared.rows).toEqual(reference.rows);
    expect(prepared.rows).toHaveLength(1);
    const [stored] = prepared.rows as (typeof row)[];
    expect(stored).toMatchObject({ id: row.id, body: row.body, at: row.at, tags: row.tags });
    expect(stored!.bytes).toEqual(row.bytes);
    expect(stored!.big).toBe(Number.MAX_SAFE_INTEGER);
  });

  it("answers as PGlite's own query does, whatever the size and text of the values", async () => {
    const exchanges = jest.spyOn(PGlite.prototype, 'execProtocolRawStream');
    await sql`create table wide_values (id int primary key, body jsonb, note text)`.execute(db);
    // Larger than the buffers the exchange starts with (16 KiB out, 64 KiB back).
    const body = { text: 'é中😀'.repeat(30_000), list: Array.from({ length: 500 }, (_, n) => n) };
    const notes = ['\uFEFFa byte-order mark first', 'ünïcödé 😀', ''];
    const inserted = await sql`
      insert into wide_values values (${1}, ${JSON.stringify(body)}, ${notes[0]}),
        (${2}, ${null}, ${notes[1]}), (${3}, ${null}, ${notes[2]})
    `.execute(db);
    const pglite = exchanges.mock.contexts[0] as PGlite;
    const statement = 'select id, body, note, id as "__proto__" from wide_values where id > $1';
    const { rows } = await db.executeQuery(CompiledQuery.raw(statement, [0]));
    const reference = await pglite.query(statement, [0], { rowMode: 'object' });
    expect(rows).toEqual(reference.rows);
    expect(rows).toHaveLength(3);
    expect(Object.keys(rows[0] as object)).toEqual(['id', 'body', 'note', '__proto__']);
    expect((rows[0] as { body: unknown }).body).toEqual(body);
    expect(inserted.numAffectedRows).toBe(3n);
    const updated = await db.executeQuery(
      CompiledQuery.raw('update wide_values set note = $1 where id < $2', ['x', 3]),
    );
    expect(updated.numAffectedRows).toBe(2n);
  });

  it('throws an error the backend raises after the statement completed (at its commit)', async () => {
    await sql`
      create table deferred_ids (id int, constraint one_each unique (id) deferrable initially deferred)
    `.execute(db);
    await sql`insert into deferred_ids values (${1})`.execute(db);
    const failure = (await sql`insert into deferred_ids values (${1})`
      .execute(db)
      .catch((error: unknown) => error)) as { code?: string; constraint?: string };
    expect(failure).toMatchObject({ code: '23505', constraint: 'one_each' });
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from deferred_ids where id = ${1}`.execute(db);
    expect(rows).toEqual([{ n: 1 }]);
  });

  it('prepares again after a schema change, made through the driver or by a socket client', async () => {
    await sql`create table reshaped (a int)`.execute(db);
    await sql`insert into reshaped values (${1})`.execute(db);
    // Read in a transaction, where a stale plan could not be prepared again and retried.
    const read = () =>
      database.transaction(
        async (trx) =>
          (await sql<Record<string, number>>`select * from reshaped where a = ${1}`.execute(trx))
            .rows,
      );
    expect(await read()).toEqual([{ a: 1 }]);

    await sql`alter table reshaped add column b int default 7`.execute(db);
    expect(await read()).toEqual([{ a: 1, b: 7 }]);

    const client = new pg.Client({ connectionString: await database.connectionString() });
    await client.connect();
    try {
      await client.query('alter table reshaped add column c int default 9');
    } finally {
      await client.end();
    }
    expect(await read()).toEqual([{ a: 1, b: 7, c: 9 }]);
  });

  it('prepares again a statement whose plan went stale unnoticed, outside a transaction', async () => {
    await sql`create table widened (a int)`.execute(db);
    await sql`insert into widened values (${1})`.execute(db);
    // DDL run from a function: the statement that calls it reads as a plain select.
    await sql`
      create function widen() returns void language plpgsql as $$
      begin alter table widened add column b int default 3; end $$
    `.execute(db);
    const read = async () =>
      (await sql<Record<string, number>>`select * from widened where a = ${1}`.execute(db)).rows;
    expect(await read()).toEqual([{ a: 1 }]);
    await sql`select widen()`.execute(db);
    expect(await read()).toEqual([{ a: 1, b: 3 }]);
  });

  it('leaves the session ready after a failed statement, and fails a transaction as before', async () => {
    await sql`create table unique_ids (id int primary key)`.execute(db);
    const insert = (id: number) => sql`insert into unique_ids values (${id})`.execute(db);
    await insert(1);
    const failure = (await insert(1).catch((error: unknown) => error)) as {
      code?: string;
      query?: string;
    };
    expect(failure.code).toBe('23505');
    expect(failure.query).toBe('insert into unique_ids values ($1)');
    await insert(2);

    const aborted = await database
      .transaction(async (trx) => {
        await sql`insert into unique_ids values (${2})`.execute(trx).catch(() => undefined);
        await sql`select * from unique_ids where id = ${1}`.execute(trx);
      })
      .catch((error: unknown) => (error as { code?: string }).code);
    expect(aborted).toBe('25P02');
    const { rows } = await sql<{
      id: number;
    }>`select id from unique_ids where id > ${0} order by id`.execute(db);
    expect(rows).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it(`keeps at most ${PREPARED_STATEMENTS_KEPT} statements prepared`, async () => {
    for (let n = 0; n < PREPARED_STATEMENTS_KEPT + 20; n += 1) {
      await sql`select ${n}::int + ${sql.raw(String(n))} as n`.execute(db);
    }
    // One more exchange sends the closes due.
    await sql`select ${1}::int as n`.execute(db);
    expect(await preparedCount(db)).toBe(PREPARED_STATEMENTS_KEPT);
  });
});

describe('the file system after a statement', () => {
  it("is synced where PGlite's file system syncs, and not where its sync does nothing", async () => {
    const synced: string[] = [];
    class CountedFs extends MemoryFS {
      override syncToFs(): Promise<void> {
        synced.push('synced');
        return Promise.resolve();
      }
    }
    const { database } = await openPglite(null, silent);
    const counted = await PGlite.create({ fs: new CountedFs() });
    const builtIn = jest.spyOn(PGlite.prototype, 'syncToFs');
    try {
      await sql`select ${1}::int as n`.execute(database.db);
      await sql`select ${2}::int as n`.execute(database.db);
      expect(builtIn).not.toHaveBeenCalled();
      builtIn.mockRestore();

      synced.length = 0;
      const statements = new PreparedStatements(counted);
      for (const n of [1, 2]) await statements.query('select $1::int as n', [n]);
      // The statement's preparation, then each of its two runs.
      expect(synced).toEqual(['synced', 'synced', 'synced']);
    } finally {
      builtIn.mockRestore();
      await Promise.all([database.close(), counted.close()]);
    }
  }, 120_000);
});
