import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One migration folder of `prisma/migrations`, read from disk. */
export interface MigrationFile {
  /** The folder name, `<UTC timestamp>_<name>`; migrations apply in this order. */
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

/**
 * sha256 of a migration's SQL with line endings normalised, so a checkout that turns LF into
 * CRLF does not look like an edited migration.
 */
export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n'), 'utf8').digest('hex');
}

/** Plain code-unit order (not locale order): names start with a fixed-width UTC timestamp. */
export function compareMigrationNames(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/** Every `<dir>/<name>/migration.sql`, in apply order. A missing directory has no migrations. */
export function readMigrationFiles(dir: string): MigrationFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(dir, entry.name, 'migration.sql')))
    .map((entry) => entry.name)
    .sort(compareMigrationNames)
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: migrationChecksum(sql) };
    });
}
