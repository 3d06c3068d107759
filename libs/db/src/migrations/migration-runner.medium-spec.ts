import {
  appendFileSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import {
  createTestPostgresDatabase,
  serviceGate,
  type TestPostgresDatabase,
} from '@caravel/testing';
import { sql } from 'kysely';
import { openDatabase } from '../connection/open-database.js';
import type { Database } from '../connection/database.types.js';
import { migrate } from './migration-runner.js';
import { defaultMigrationsDir } from './migrations-dir.js';

const migrationCount = readdirSync(defaultMigrationsDir(), { withFileTypes: true }).filter((e) =>
  e.isDirectory(),
).length;

async function appliedNames(database: Database): Promise<string[]> {
  const result = await sql<{
    name: string;
  }>`select name from _caravel_migrations order by name`.execute(database.db);
  return result.rows.map((row) => row.name);
}

/** A copy of the real migrations folder that a test may edit. */
function copyMigrations(): string {
  const dir = mkdtempSync(join(tmpdir(), 'caravel-migrations-'));
  cpSync(defaultMigrationsDir(), dir, { recursive: true });
  return dir;
}

function firstMigrationFile(dir: string): string {
  const first = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()[0];
  return join(dir, first ?? 'missing', 'migration.sql');
}

const gate = await serviceGate(['postgres']);

gate.describe('migration runner on PostgreSQL', () => {
  let server: TestPostgresDatabase;
  const opened: Database[] = [];
  const dirs: string[] = [];

  const open = async (
    options: { migrationsDir?: string; migrate?: boolean } = {},
  ): Promise<Database> => {
    const database = await openDatabase({ url: server.url, ...options });
    opened.push(database);
    return database;
  };

  beforeEach(async () => {
    server = await createTestPostgresDatabase();
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((database) => database.close()));
    dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true }));
    await server.drop();
  });

  it('applies every migration once and records name, checksum and time', async () => {
    const database = await open();
    const rows = await sql<{ name: string; checksum: string; applied_at: Date }>`
      select * from _caravel_migrations`.execute(database.db);
    expect(rows.rows).toHaveLength(migrationCount);
    expect(rows.rows[0]?.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(rows.rows[0]?.applied_at).toBeInstanceOf(Date);
  });

  it('does nothing on a second start', async () => {
    await (await open()).close();
    const again = await open({ migrate: false });
    expect(await migrate(again)).toEqual({ applied: [] });
    expect(await appliedNames(again)).toHaveLength(migrationCount);
  });

  it('applies only the new migration when one is added', async () => {
    const dir = copyMigrations();
    dirs.push(dir);
    const database = await open({ migrationsDir: dir });
    const folder = join(dir, '99991231000000_probe');
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'migration.sql'),
      'CREATE TABLE probe (id int);\nINSERT INTO probe VALUES (1);\n',
    );
    expect(await migrate(database, { migrationsDir: dir })).toEqual({
      applied: ['99991231000000_probe'],
    });
    const probe = await sql<{ id: number }>`select id from probe`.execute(database.db);
    expect(probe.rows).toEqual([{ id: 1 }]);
  });

  it('refuses to start when an applied migration was modified, naming it', async () => {
    const dir = copyMigrations();
    dirs.push(dir);
    await (await open({ migrationsDir: dir })).close();
    appendFileSync(firstMigrationFile(dir), '\n-- edited after release\n');
    const failure = await open({ migrationsDir: dir }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AppError);
    expect((failure as AppError).code).toBe('MIGRATION_MODIFIED');
    expect((failure as AppError).message).toContain(readdirSync(dir).sort()[0]);
  });

  it('applies each migration once when five services start at the same time', async () => {
    const starters = await Promise.all(Array.from({ length: 5 }, () => open({ migrate: false })));
    const results = await Promise.all(starters.map((database) => migrate(database)));
    const appliedByAll = results.flatMap((result) => result.applied);
    expect(appliedByAll).toHaveLength(migrationCount);
    expect(await appliedNames(starters[0] as Database)).toHaveLength(migrationCount);
  });

  it('rolls back a failing migration entirely and does not record it', async () => {
    const dir = copyMigrations();
    dirs.push(dir);
    const database = await open({ migrationsDir: dir });
    const folder = join(dir, '99991231000000_broken');
    mkdirSync(folder);
    writeFileSync(
      join(folder, 'migration.sql'),
      'CREATE TABLE half (id int);\nSELECT * FROM no_such_table;\n',
    );
    await expect(migrate(database, { migrationsDir: dir })).rejects.toThrow(/no_such_table/);
    const half = await sql<{
      n: number;
    }>`select count(*)::int as n from pg_tables where tablename = 'half'`.execute(database.db);
    expect(half.rows[0]?.n).toBe(0);
    expect(await appliedNames(database)).not.toContain('99991231000000_broken');
  });
});

describe('migration runner on PGlite', () => {
  it('applies once, is a no-op the second time and refuses a modified applied migration', async () => {
    const dir = copyMigrations();
    const database = await openDatabase({ url: 'pglite:memory', migrationsDir: dir });
    try {
      expect(await appliedNames(database)).toHaveLength(migrationCount);
      expect(await migrate(database, { migrationsDir: dir })).toEqual({ applied: [] });
      appendFileSync(firstMigrationFile(dir), '\n-- edited after release\n');
      await expect(migrate(database, { migrationsDir: dir })).rejects.toMatchObject({
        code: 'MIGRATION_MODIFIED',
      });
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
