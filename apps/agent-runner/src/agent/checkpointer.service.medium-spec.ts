import { applyServiceGrants, openDatabase, type Database } from '@caravel/db';
import { AppError } from '@caravel/errors';
import {
  createTestPostgresDatabase,
  databaseUrlAs,
  serviceGate,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import pg from 'pg';
import { AgentKitLoader } from './agent-kit.loader.js';
import { CheckpointerService } from './checkpointer.service.js';

// The run checkpointer of an agent runner on its own role (DATABASE_MIGRATE=false): it may not
// run LangGraph's setup() (CREATE SCHEMA is refused without DDL rights), so it checks the tables
// `caravel db migrate` makes as the owner, and says so when they are missing.

const ROLE = 'caravel_agent_runner';

/** What `caravel db migrate` does for the checkpointer, as the owner. */
async function setUpAsOwner(url: string): Promise<void> {
  const { PostgresSaver } = await import('@langchain/langgraph-checkpoint-postgres');
  const saver = PostgresSaver.fromConnString(url);
  await saver.setup().finally(() => saver.end());
}

const gate = await serviceGate(['postgres']);

gate.describe('the run checkpointer on a role without DDL', () => {
  let server: TestPostgresDatabase;
  let runner: Database;
  let checkpointer: CheckpointerService;

  beforeAll(async () => {
    server = await createTestPostgresDatabase();
    const owner = await openDatabase({ url: server.url });
    await owner.close();
    // Before `caravel db migrate` made LangGraph's tables, `caravel db grants` refuses (it grants
    // on them): the role as a hand-made one with only what the start-up check reads.
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await client.query(
      `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${ROLE}') THEN ` +
        `BEGIN CREATE ROLE ${ROLE} LOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END; ` +
        `END IF; END $$`,
    );
    await client.query(`GRANT SELECT ON _caravel_migrations TO ${ROLE}`);
    await client.end();
    runner = await openDatabase({ url: databaseUrlAs(server.url, ROLE), migrate: 'check' });
    checkpointer = new CheckpointerService(runner, new AgentKitLoader(), { ownsSchema: false });
  });

  afterAll(async () => {
    await checkpointer?.onModuleDestroy();
    await runner?.close();
    // The role is the server's and stays (see service-roles.ts): other suites grant it too.
    await server.drop();
  });

  it('refuses with the coded error naming caravel db migrate while the tables are missing', async () => {
    const failure = await checkpointer.get().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'MIGRATIONS_PENDING' });
    expect((failure as Error).message).toContain('caravel db migrate');
    expect((failure as AppError).details).toMatchObject({
      tables: expect.arrayContaining(['checkpoints', 'checkpoint_writes']),
    });
  });

  it("opens once the owner made them, and keeps a run's checkpoints under the role", async () => {
    await setUpAsOwner(server.url);
    const owner = await openDatabase({ url: server.url, migrate: false });
    await applyServiceGrants(owner, ['agent-runner']).finally(() => owner.close());
    const saver = await checkpointer.get();
    const config = { configurable: { thread_id: 'thread-1', checkpoint_ns: '' } };
    await saver.put(
      config,
      {
        v: 1,
        id: '1ef4f797-8335-6428-8001-8a1503f9b875',
        ts: new Date(0).toISOString(),
        channel_values: { messages: ['hello'] },
        channel_versions: { messages: 1 },
        versions_seen: {},
      },
      { source: 'input', step: -1, parents: {} },
      { messages: 1 },
    );
    expect((await saver.getTuple(config))?.checkpoint.channel_values).toEqual({
      messages: ['hello'],
    });
  });
});
