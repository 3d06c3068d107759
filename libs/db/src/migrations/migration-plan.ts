import type { MigrationFile } from './migration-files.js';

/** A migration recorded in `_caravel_migrations`. */
export interface AppliedMigration {
  readonly name: string;
  readonly checksum: string;
  readonly appliedAt: Date;
}

/** What the runner has to do, decided from the files and the history alone. */
export interface MigrationPlan {
  /** Files not applied yet, in apply order. */
  readonly pending: MigrationFile[];
  /** Applied migrations whose file now has a different checksum. */
  readonly modified: string[];
  /** Applied migrations with no file (a newer release ran against this database). */
  readonly unknown: string[];
}

export function planMigrations(
  files: readonly MigrationFile[],
  applied: readonly AppliedMigration[],
): MigrationPlan {
  const appliedByName = new Map(applied.map((migration) => [migration.name, migration]));
  const fileNames = new Set(files.map((file) => file.name));
  return {
    pending: files.filter((file) => !appliedByName.has(file.name)),
    modified: files
      .filter((file) => {
        const record = appliedByName.get(file.name);
        return record !== undefined && record.checksum !== file.checksum;
      })
      .map((file) => file.name),
    unknown: applied
      .filter((migration) => !fileNames.has(migration.name))
      .map((migration) => migration.name),
  };
}
