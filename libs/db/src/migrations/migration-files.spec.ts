import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { compareMigrationNames, migrationChecksum, readMigrationFiles } from './migration-files.js';
import { planMigrations } from './migration-plan.js';
import { defaultMigrationsDir } from './migrations-dir.js';

describe('migrationChecksum', () => {
  it('is the sha256 of the SQL and ignores CRLF versus LF', () => {
    expect(migrationChecksum('')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    );
    expect(migrationChecksum('CREATE TABLE a ();\r\nSELECT 1;\r\n')).toBe(
      migrationChecksum('CREATE TABLE a ();\nSELECT 1;\n'),
    );
  });

  it('changes when the SQL changes', () => {
    expect(migrationChecksum('SELECT 1;')).not.toBe(migrationChecksum('SELECT 2;'));
  });
});

describe('migration order', () => {
  it('sorts by plain code-unit order, not locale order', () => {
    const names = ['20260102000000_b', '20260101000000_z', '20260101000000_A', '20260101000000_a'];
    expect([...names].sort(compareMigrationNames)).toEqual([
      '20260101000000_A',
      '20260101000000_a',
      '20260101000000_z',
      '20260102000000_b',
    ]);
  });
});

describe('readMigrationFiles', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('reads <name>/migration.sql folders in order and ignores other entries', () => {
    const dir = mkdtempSync(join(tmpdir(), 'caravel-migrations-'));
    dirs.push(dir);
    for (const name of ['20260201000000_second', '20260101000000_first', 'not_a_migration'])
      mkdirSync(join(dir, name));
    writeFileSync(join(dir, '20260201000000_second', 'migration.sql'), 'SELECT 2;');
    writeFileSync(join(dir, '20260101000000_first', 'migration.sql'), 'SELECT 1;');
    writeFileSync(join(dir, 'migration_lock.toml'), 'provider = "postgresql"');
    const files = readMigrationFiles(dir);
    expect(files.map((file) => file.name)).toEqual([
      '20260101000000_first',
      '20260201000000_second',
    ]);
    expect(files[0]?.checksum).toBe(migrationChecksum('SELECT 1;'));
  });

  it('finds no migrations in a missing folder', () => {
    expect(readMigrationFiles(join(tmpdir(), 'caravel-does-not-exist'))).toEqual([]);
  });

  it('finds the package migrations folder with the init migration from the source tree', () => {
    expect(defaultMigrationsDir()).toMatch(/libs[/\\]db[/\\]prisma[/\\]migrations$/);
    expect(
      readMigrationFiles(defaultMigrationsDir()).some((file) => file.name.endsWith('_init')),
    ).toBe(true);
  });
});

describe('planMigrations', () => {
  const file = (name: string, sql = name) => ({ name, sql, checksum: migrationChecksum(sql) });
  const applied = (name: string, sql = name) => ({
    name,
    checksum: migrationChecksum(sql),
    appliedAt: new Date(0),
  });

  it('lists unapplied files as pending, in order', () => {
    const plan = planMigrations([file('1_a'), file('2_b'), file('3_c')], [applied('1_a')]);
    expect(plan.pending.map((f) => f.name)).toEqual(['2_b', '3_c']);
    expect(plan.modified).toEqual([]);
  });

  it('reports applied migrations whose file changed, and applied ones with no file', () => {
    const plan = planMigrations(
      [file('1_a', 'edited'), file('2_b')],
      [applied('1_a'), applied('2_b'), applied('9_newer')],
    );
    expect(plan.modified).toEqual(['1_a']);
    expect(plan.unknown).toEqual(['9_newer']);
    expect(plan.pending).toEqual([]);
  });
});
