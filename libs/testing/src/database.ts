import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '@caravel/db';
import pg from 'pg';
import { serviceGate, type RequiredService } from './service-gate.js';
import { testEnvironment } from './test-environment.js';

/** One database engine a suite runs against; `open()` gives a fresh, migrated database. */
export interface TestDatabaseTarget {
  readonly label: 'postgres' | 'pglite';
  /** Services that must be up for this target (for `serviceGate`). */
  readonly services: readonly RequiredService[];
  open(): Promise<Database>;
}

/** A throwaway PostgreSQL database on TEST_DATABASE_URL; `drop()` removes it (connections too). */
export interface TestPostgresDatabase {
  readonly name: string;
  readonly url: string;
  drop(): Promise<void>;
}

async function onServer(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: testEnvironment.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** Creates `caravel_t_<random>` on the test server (empty: not migrated). */
export async function createTestPostgresDatabase(): Promise<TestPostgresDatabase> {
  const name = `caravel_t_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE "${name}"`);
  const url = new URL(testEnvironment.TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

function withDrop(database: Database, drop: () => Promise<void>): Database {
  let closing: Promise<void> | null = null;
  return {
    ...database,
    close: () =>
      (closing ??= (async () => {
        try {
          await database.close();
        } finally {
          await drop();
        }
      })()),
  };
}

const postgresTarget: TestDatabaseTarget = {
  label: 'postgres',
  services: ['postgres'],
  async open() {
    const created = await createTestPostgresDatabase();
    try {
      return withDrop(await openDatabase({ url: created.url }), created.drop);
    } catch (error) {
      await created.drop();
      throw error;
    }
  },
};

const pgliteTarget: TestDatabaseTarget = {
  label: 'pglite',
  services: [],
  open: () => openDatabase({ url: 'pglite:memory' }),
};

/** Both database engines: a fresh database per `open()`, migrated, removed on `close()`. */
export function testDatabaseTargets(): TestDatabaseTarget[] {
  return [postgresTarget, pgliteTarget];
}

/**
 * `describe` once per target, each behind `serviceGate` (a down PostgreSQL skips its half with the
 * reason locally and fails under CI=true). Await it at the top level of the test file.
 */
export async function describeEachDatabase(
  name: string,
  body: (target: TestDatabaseTarget) => void,
): Promise<void> {
  for (const target of testDatabaseTargets()) {
    const gate = await serviceGate(target.services);
    gate.describe(`${name} [${target.label}]`, () => body(target));
  }
}
