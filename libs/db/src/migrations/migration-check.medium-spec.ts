import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  createTestPostgresDatabase,
  serviceGate,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { sql } from 'kysely';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../connection/open-database.js';
import type { Database } from '../connection/database.types.js';
import { defaultMigrationsDir } from './migrations-dir.js';

// What a service started with DATABASE_MIGRATE=false does at start: check, never migrate.

const names = readdirSync(defaultMigrationsDir(), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

async function hasHistoryTable(database: Database): Promise<boolean> {
  const result = await sql<{ found: boolean }>`
    select to_regclass('_caravel_migrations') is not null as found`.execute(database.db);
  return result.rows[0]?.found === true;
}

const gate = await serviceGate(['postgres']);

gate.describe("openDatabase({ migrate: 'check' }) on PostgreSQL", () => {
  let server: TestPostgresDatabase;
  let olderRelease: string;

  beforeAll(async () => {
    server = await createTestPostgresDatabase();
    // The migrations of a release one migration older than this build.
    olderRelease = mkdtempSync(join(tmpdir(), 'caravel-migrations-'));
    cpSync(defaultMigrationsDir(), olderRelease, { recursive: true });
    rmSync(join(olderRelease, names.at(-1) ?? 'none'), { recursive: true });
  });

  afterAll(async () => {
    rmSync(olderRelease, { recursive: true, force: true });
    await server.drop();
  });

  it('refuses an unmigrated database, naming the command, and changes nothing', async () => {
    const failure = await openDatabase({ url: server.url, migrate: 'check' }).catch(
      (error: unknown) => error,
    );
    expect(failure).toMatchObject({
      code: 'MIGRATIONS_PENDING',
      retryable: false,
      details: { migrations: names },
    });
    expect((failure as Error).message).toContain('caravel db migrate');
    expect((failure as Error).message).toContain(`lacks ${names.length} migrations`);
    const look = await openDatabase({ url: server.url, migrate: false });
    try {
      expect(await hasHistoryTable(look)).toBe(false);
    } finally {
      await look.close();
    }
  });

  it('names the one migration an older release did not apply', async () => {
    await (await openDatabase({ url: server.url, migrationsDir: olderRelease })).close();
    await expect(openDatabase({ url: server.url, migrate: 'check' })).rejects.toMatchObject({
      code: 'MIGRATIONS_PENDING',
      details: { migrations: [names.at(-1)] },
    });
  });

  it('opens a database with every migration applied', async () => {
    await (await openDatabase({ url: server.url })).close();
    const database = await openDatabase({ url: server.url, migrate: 'check' });
    await database.close();
  });

  it('opens a database a newer release migrated further', async () => {
    // This build is the older release now: its services run beside the new ones in an upgrade.
    const database = await openDatabase({
      url: server.url,
      migrate: 'check',
      migrationsDir: olderRelease,
    });
    await database.close();
  });
});

describe("openDatabase({ migrate: 'check' }) on PGlite", () => {
  it('refuses an unmigrated in-memory database', async () => {
    await expect(openDatabase({ url: 'pglite:memory', migrate: 'check' })).rejects.toMatchObject({
      code: 'MIGRATIONS_PENDING',
    });
  });
});
