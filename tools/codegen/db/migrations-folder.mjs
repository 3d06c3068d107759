// Reads and writes Prisma's migrations folder format: <timestamp>_<name>/migration.sql + migration_lock.toml.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'migration_lock.toml';
const LOCK_CONTENT =
  '# Written by tools/codegen/db.mjs; keep it in version control.\nprovider = "postgresql"\n';
const NAME = /^[a-z0-9][a-z0-9_]*$/;

/** Migration folder names in apply order (plain string order: they start with a UTC timestamp). */
export function migrationNames(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The folder as the schema engine's `MigrationList`. */
export function migrationsList(dir) {
  const lockPath = join(dir, LOCK_FILE);
  return {
    baseDir: dir,
    lockfile: {
      path: LOCK_FILE,
      content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null,
    },
    migrationDirectories: migrationNames(dir).map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: readFileSync(join(dir, name, 'migration.sql'), 'utf8') },
      },
    })),
    shadowDbInitScript: '',
  };
}

function timestamp(date) {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

export function assertMigrationName(name) {
  if (!name || !NAME.test(name)) {
    throw new Error(
      `migration name must match ${NAME} (e.g. add_reviews), got ${JSON.stringify(name)}`,
    );
  }
}

/** Writes a new migration folder (and the lock file) and returns its folder name. */
export function writeMigration(dir, name, sql, now = new Date()) {
  const folder = `${timestamp(now)}_${name}`;
  if (migrationNames(dir).some((existing) => existing >= folder)) {
    throw new Error(`a migration at or after ${folder} already exists; check the clock`);
  }
  mkdirSync(join(dir, folder), { recursive: true });
  writeFileSync(join(dir, folder, 'migration.sql'), sql.endsWith('\n') ? sql : `${sql}\n`);
  writeFileSync(join(dir, LOCK_FILE), LOCK_CONTENT);
  return folder;
}

/** Removes every migration folder (for `migrate init --replace` before anything was released). */
export function removeMigrations(dir) {
  for (const name of migrationNames(dir)) rmSync(join(dir, name), { recursive: true, force: true });
}

export function hasLockFile(dir) {
  return existsSync(join(dir, LOCK_FILE));
}
