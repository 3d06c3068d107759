import {
  ConnectTenantRepository,
  DeliveryRepository,
  openDatabase,
  ThreadRepository,
  type Database,
} from '@caravel/db';
import { openDistributedRuntime } from '@caravel/platform';
import {
  createTestPostgresDatabase,
  databaseUrlAs,
  serviceGate,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { recordingIo } from '../testing/recording-io.js';
import { runCli } from './cli.js';

// `caravel db migrate` and `caravel db grants --apply` on a real PostgreSQL, then the ingress's
// role at work: its own tables yes, people's tokens and DDL no. Roles are the server's, not the
// database's: they stay on the test server after the suite.

async function cli(args: string[]) {
  const io = recordingIo();
  const code = await runCli(['db', ...args], {}, io);
  return { code, out: io.written.join(''), err: io.errors.join('') };
}

/** The SQLSTATE a statement run as the role fails with, or null when it succeeds. */
async function stateOf(database: Database, statement: string): Promise<string | null> {
  try {
    await sql.raw(statement).execute(database.db);
    return null;
  } catch (error) {
    // The database codes a refusal (CONFIG_INVALID); PostgreSQL's SQLSTATE is its cause's.
    const sqlState = (error as { cause?: { code?: string } }).cause?.code;
    return sqlState ?? (error as { code?: string }).code ?? String(error);
  }
}

const gate = await serviceGate(['postgres']);

gate.describe('caravel db on PostgreSQL', () => {
  let server: TestPostgresDatabase;
  let ingress: Database;

  beforeAll(async () => {
    server = await createTestPostgresDatabase();
  });

  afterAll(async () => {
    await ingress?.close();
    // The roles are the server's and stay: other suites (the platform's service-roles scenario,
    // the checkpointer's) grant the same roles on their own databases at the same time, and a
    // drop between another's creation and its grants would fail them.
    await server.drop();
  });

  it('migrates with the owner and says what it applied, then that nothing was left', async () => {
    // The test server trusts 127.0.0.1, so a password is accepted and must never be printed.
    const withPassword = new URL(server.url);
    withPassword.password = 's3cret-pw';
    const first = await cli(['migrate', '--database-url', withPassword.toString()]);
    expect(first).toMatchObject({ code: 0, err: '' });
    expect(first.out).toMatch(/applied migration 20261130010237_init/);
    expect(first.out).toMatch(/: applied \d+ migrations\n$/);
    expect(first.out).not.toContain('s3cret-pw');
    const again = await cli(['migrate', '--database-url', server.url]);
    expect(again.out).toMatch(/up to date, no migration to apply\n$/);
  });

  it('prints the grants without a database, and applies them twice alike', async () => {
    const printed = await cli(['grants', '--service', 'ingress']);
    expect(printed.code).toBe(0);
    expect(printed.out).toContain('CREATE ROLE caravel_ingress LOGIN;');
    for (let round = 0; round < 2; round += 1) {
      const applied = await cli([
        'grants',
        '--apply',
        '--service',
        'ingress,dashboard',
        '--database-url',
        server.url,
      ]);
      expect(applied).toMatchObject({ code: 0, err: '' });
      expect(applied.out).toContain('granted caravel_ingress, caravel_dashboard their tables');
    }
    ingress = await openDatabase({
      url: databaseUrlAs(server.url, 'caravel_ingress'),
      migrate: 'check',
    });
  });

  it("lets the ingress's role do the ingress's work", async () => {
    // Dispatch makes threads; the ingress only looks them up.
    const threadId = randomUUID();
    const owner = await openDatabase({ url: server.url, migrate: false });
    await new ThreadRepository(owner.db)
      .upsert({ id: threadId, source: 'github', title: 'issue 1' })
      .finally(() => owner.close());
    expect((await new ThreadRepository(ingress.db).get(threadId))?.title).toBe('issue 1');
    const deliveries = new DeliveryRepository(ingress.relaxedCommits());
    const delivery = {
      id: randomUUID(),
      source: 'github' as const,
      deliveryId: randomUUID(),
      threadId,
      event: 'issue_comment',
      payload: { action: 'created' },
    };
    expect(await deliveries.claim(delivery)).toMatchObject({ outcome: 'claimed' });
    await deliveries.settle(delivery.id, new Date());
    const tenants = new ConnectTenantRepository(ingress.db);
    await tenants.install({
      clientKey: randomUUID(),
      baseUrl: 'https://example.atlassian.net',
      productType: 'confluence',
      sealedSecret: 'sealed',
      keyId: 'k1',
    });
  });

  it("refuses the ingress's role people's tokens, writes to what it only reads, and any DDL", async () => {
    const denied = '42501'; // insufficient_privilege
    expect(await stateOf(ingress, 'select * from personal_tokens')).toBe(denied);
    expect(await stateOf(ingress, 'select * from user_tokens')).toBe(denied);
    expect(await stateOf(ingress, 'delete from runs')).toBe(denied);
    expect(await stateOf(ingress, "update threads set title = 'rewritten'")).toBe(denied);
    expect(await stateOf(ingress, 'truncate deliveries')).toBe(denied);
    expect(await stateOf(ingress, 'create table stolen (id int)')).toBe(denied);
    expect(await stateOf(ingress, 'alter table threads add column x int')).toBe(denied);
    expect(await stateOf(ingress, 'drop table deliveries')).toBe(denied);
    expect(await stateOf(ingress, "insert into _caravel_migrations values ('x', 'y')")).toBe(
      denied,
    );
  });

  it('refuses grants on the embedded database, which has no roles', async () => {
    const refused = await cli(['grants', '--apply', '--database-url', 'pglite:memory']);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('The embedded database (PGlite) has one user and no roles');
  });
});

gate.describe('a service started with DATABASE_MIGRATE=false', () => {
  let empty: TestPostgresDatabase;

  beforeAll(async () => {
    empty = await createTestPostgresDatabase();
  });

  afterAll(async () => {
    await empty.drop();
  });

  it('refuses an unmigrated database with the coded error naming caravel db migrate', async () => {
    const failure = await openDistributedRuntime({
      name: 'ingress-test',
      // Never reached: the database is checked first.
      natsUrl: 'nats://127.0.0.1:1',
      databaseUrl: empty.url,
      migrate: false,
    }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'MIGRATIONS_PENDING' });
    expect((failure as Error).message).toContain('Run `caravel db migrate`');
  });
});
