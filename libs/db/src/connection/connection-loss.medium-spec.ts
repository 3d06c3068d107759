import { afterAll, beforeAll, expect, it } from '@jest/globals';
import {
  createTestPostgresDatabase,
  serviceGate,
  TcpProxy,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from './open-database.js';
import type { Database } from './database.types.js';

const gate = await serviceGate(['postgres']);

gate.describe('a PostgreSQL connection lost in the middle of a query', () => {
  let created: TestPostgresDatabase;
  let proxy: TcpProxy;
  let database: Database;

  beforeAll(async () => {
    created = await createTestPostgresDatabase();
    const target = new URL(created.url);
    proxy = await TcpProxy.open({ host: target.hostname, port: Number(target.port || 5432) });
    target.host = `127.0.0.1:${proxy.port}`;
    database = await openDatabase({ url: target.toString() });
  });

  afterAll(async () => {
    await database?.close();
    await proxy?.stop();
    await created?.drop();
  });

  it('rejects that query as DEPENDENCY_UNAVAILABLE, keeps the process up, and serves again once back', async () => {
    const slow = sql`select pg_sleep(30)`.execute(database.db);
    // The query is on the wire (its connection checked out) before the cut.
    await untilServerRuns('select pg_sleep(30)', created.url);
    await proxy.stop();
    await expect(slow).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    await expect(database.ping()).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    await proxy.start();
    await expect(database.ping()).resolves.toBeUndefined();
  });
});

/** Waits until the server shows `query` running (asked over a connection of its own). */
async function untilServerRuns(query: string, url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (;;) {
      const seen = await client.query<{ n: string }>(
        `select count(*) as n from pg_stat_activity where query = $1 and state = 'active'`,
        [query],
      );
      if (Number(seen.rows[0]?.n) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    await client.end();
  }
}
