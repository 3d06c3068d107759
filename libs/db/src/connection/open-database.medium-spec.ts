import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { describeEachDatabase } from '@caravel/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from './open-database.js';
import type { Database } from './database.types.js';

const threadId = '00000000-0000-4000-8000-000000000001';

await describeEachDatabase('openDatabase', openDatabase, (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await target.open();
  });

  afterAll(async () => {
    await database?.close();
  });

  it(`reports its kind (${target.label})`, () => {
    expect(database.kind).toBe(target.label);
  });

  it('returns bigint as number, timestamptz as Date and json as parsed values', async () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    await database.db
      .insertInto('run_events')
      .values({
        id: '00000000-0000-4000-8000-0000000000e1',
        thread_id: threadId,
        type: 'step',
        stream: 'EVENTS',
        sequence: 9_007_199_254_740_000,
        position: 1,
        occurred_at: at,
        data: JSON.stringify([1, { nested: 'yes' }]),
      })
      .execute();
    const row = await database.db.selectFrom('run_events').selectAll().executeTakeFirstOrThrow();
    expect(row.sequence).toBe(9_007_199_254_740_000);
    expect(row.occurred_at).toEqual(at);
    expect(row.data).toEqual([1, { nested: 'yes' }]);
    const count = await database.db
      .selectFrom('run_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(count.n).toBe(1);
  });

  it('commits relaxed writes without waiting for the disk, seen at once by other sessions', async () => {
    const relaxed = database.relaxedCommits();
    const setting = async (db: typeof relaxed) =>
      (await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(db)).rows[0]!
        .synchronous_commit;
    if (target.label === 'postgres') {
      expect(await setting(relaxed)).toBe('off');
      expect(await setting(database.db)).toBe('on');
    } else {
      expect(relaxed).toBe(database.db);
    }
    await relaxed.insertInto('inbox').values({ consumer: 'relaxed', message_id: 'one' }).execute();
    const seen = await database.db
      .selectFrom('inbox')
      .select('message_id')
      .where('consumer', '=', 'relaxed')
      .execute();
    expect(seen).toEqual([{ message_id: 'one' }]);
  });

  it('commits a transaction that resolves and rolls back one that throws', async () => {
    const insert = (id: string) =>
      database.transaction((trx) =>
        trx.insertInto('inbox').values({ consumer: 'probe', message_id: id }).execute(),
      );
    await insert('kept');
    await expect(
      database.transaction(async (trx) => {
        await trx
          .insertInto('inbox')
          .values({ consumer: 'probe', message_id: 'dropped' })
          .execute();
        throw new Error('handler failed');
      }),
    ).rejects.toThrow('handler failed');
    const ids = await database.db
      .selectFrom('inbox')
      .select('message_id')
      .where('consumer', '=', 'probe')
      .execute();
    expect(ids.map((row) => row.message_id)).toEqual(['kept']);
  });

  it('gives a connection string a pg client can use to see the same rows', async () => {
    await database.db.insertInto('inbox').values({ consumer: 'wire', message_id: 'm-1' }).execute();
    const pool = new pg.Pool({ connectionString: await database.connectionString(), max: 3 });
    try {
      const [one, two] = await Promise.all([
        pool.query<{ message_id: string }>("select message_id from inbox where consumer = 'wire'"),
        pool.query<{ n: string }>('select count(*) as n from inbox'),
      ]);
      expect(one.rows).toEqual([{ message_id: 'm-1' }]);
      expect(Number(two.rows[0]?.n)).toBeGreaterThanOrEqual(1);
      await pool.query("insert into inbox (consumer, message_id) values ('wire', 'm-2')");
      const seen = await database.db
        .selectFrom('inbox')
        .select('message_id')
        .where('consumer', '=', 'wire')
        .execute();
      expect(seen.map((row) => row.message_id).sort()).toEqual(['m-1', 'm-2']);
    } finally {
      await pool.end();
    }
  });

  it('keeps a pg client transaction and an in-process transaction apart', async () => {
    const client = new pg.Client({ connectionString: await database.connectionString() });
    await client.connect();
    try {
      await client.query('begin');
      await client.query("insert into inbox (consumer, message_id) values ('apart', 'socket')");
      const inProcess = database.transaction((trx) =>
        trx.insertInto('inbox').values({ consumer: 'apart', message_id: 'kysely' }).execute(),
      );
      await client.query('rollback');
      await inProcess;
      const rows = await database.db
        .selectFrom('inbox')
        .select('message_id')
        .where('consumer', '=', 'apart')
        .execute();
      expect(rows.map((row) => row.message_id)).toEqual(['kysely']);
    } finally {
      await client.end();
    }
  });

  it('keeps each pg client query whole while other clients and in-process transactions run at once', async () => {
    // A parameterised query is Parse/Bind/Describe/Execute/Sync, separate protocol messages; on
    // PGlite's single session no other client's message may land in between (it would replace
    // the unnamed statement or portal), including while an in-process transaction waits.
    const pool = new pg.Pool({ connectionString: await database.connectionString(), max: 4 });
    const failures: string[] = [];
    const echo = async (runner: pg.Pool | pg.PoolClient, who: string, round: number) => {
      const result = await runner.query<{ v: string }>(`select $1::text || ':' || $2::text as v`, [
        who,
        round,
      ]);
      const answer = result.rows[0]?.v;
      if (answer !== `${who}:${round}`) failures.push(`${who}:${round} answered ${answer}`);
    };
    const inTransaction = async (who: string, round: number) => {
      const client = await pool.connect();
      try {
        await client.query('begin');
        await echo(client, who, round);
        await client.query('commit');
      } finally {
        client.release();
      }
    };
    const capture = (work: Promise<unknown>) =>
      work.catch((error: unknown) => failures.push(String(error)));
    try {
      const work: Promise<unknown>[] = [];
      for (let round = 0; round < 60; round += 1) {
        work.push(
          capture(inTransaction(`tx${round % 2}`, round)),
          capture(echo(pool, 'plain', round)),
          capture(echo(pool, 'other', round)),
          capture(database.transaction((trx) => sql`select ${round}::int as round`.execute(trx))),
        );
      }
      await Promise.all(work);
      expect(failures).toEqual([]);
    } finally {
      await pool.end();
    }
  }, 120_000);

  it('answers ping', async () => {
    await expect(database.ping()).resolves.toBeUndefined();
  });
});

describe('openDatabase failures and PGlite data directories', () => {
  it('fails with one clear DEPENDENCY_UNAVAILABLE error for an unreachable PostgreSQL', async () => {
    const failure = await openDatabase({ url: 'postgres://postgres@127.0.0.1:1/postgres' }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(AppError);
    const error = failure as AppError;
    expect(error.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(error.message).toContain('127.0.0.1:1');
    expect(error.message).toContain('pg_ctlcluster 15 main start');
    expect(error.message).toContain('DATABASE_URL');
  });

  it('rejects an unknown URL scheme as CONFIG_INVALID', async () => {
    await expect(openDatabase({ url: 'mysql://x' })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
    });
  });

  it('keeps PGlite data in its directory across close and reopen', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'caravel-pglite-')), 'nested', 'pgdata');
    try {
      const first = await openDatabase({ url: `pglite:${dir}` });
      await first.db
        .insertInto('inbox')
        .values({ consumer: 'durable', message_id: 'm-1' })
        .execute();
      await first.close();
      const second = await openDatabase({ url: `pglite:${dir}` });
      try {
        const rows = await second.db.selectFrom('inbox').select('message_id').execute();
        expect(rows).toEqual([{ message_id: 'm-1' }]);
        const applied = await sql<{
          n: number;
        }>`select count(*)::int as n from _caravel_migrations`.execute(second.db);
        expect(applied.rows[0]?.n).toBeGreaterThan(0);
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
