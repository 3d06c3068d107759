import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { serviceGate, type RequiredService } from './service-gate.js';
import { testEnvironment } from './test-environment.js';

/** What the helpers need of a database; `@caravel/db`'s `Database` fits. */
export interface ClosableDatabase {
  close(): Promise<void>;
}

/**
 * How to open a database from a URL (`openDatabase` from `@caravel/db`). Injected rather than
 * imported so that `@caravel/db`'s own tests can use these helpers without a dependency cycle.
 */
export type DatabaseOpener<D extends ClosableDatabase> = (options: { url: string }) => Promise<D>;

/** One database engine a suite runs against; `open()` gives a fresh, migrated database. */
export interface TestDatabaseTarget<D extends ClosableDatabase = ClosableDatabase> {
  readonly label: 'postgres' | 'pglite';
  /** Services that must be up for this target (for `serviceGate`). */
  readonly services: readonly RequiredService[];
  open(): Promise<D>;
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

function withDrop<D extends ClosableDatabase>(database: D, drop: () => Promise<void>): D {
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

/** Both database engines: a fresh database per `open()`, migrated, removed on `close()`. */
export function testDatabaseTargets<D extends ClosableDatabase>(
  openDatabase: DatabaseOpener<D>,
): TestDatabaseTarget<D>[] {
  const postgres: TestDatabaseTarget<D> = {
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
  const pglite: TestDatabaseTarget<D> = {
    label: 'pglite',
    services: [],
    open: () => openDatabase({ url: 'pglite:memory' }),
  };
  return [postgres, pglite];
}

/**
 * `describe` once per target, each behind `serviceGate` (a down PostgreSQL skips its half with the
 * reason locally and fails under CI=true). Await it at the top level of the test file.
 */
export async function describeEachDatabase<D extends ClosableDatabase>(
  name: string,
  openDatabase: DatabaseOpener<D>,
  body: (target: TestDatabaseTarget<D>) => void,
): Promise<void> {
  for (const target of testDatabaseTargets(openDatabase)) {
    const gate = await serviceGate(target.services);
    gate.describe(`${name} [${target.label}]`, () => body(target));
  }
}

/** The same database, logged in as `role` with no password (the test server trusts 127.0.0.1). */
export function databaseUrlAs(url: string, role: string): string {
  const login = new URL(url);
  login.username = role;
  login.password = '';
  return login.toString();
}
