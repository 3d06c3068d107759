import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import { sql } from 'kysely';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { migrate } from './migration-runner.js';
import { defaultMigrationsDir } from './migrations-dir.js';

/** The real migrations up to (not including) the one that adds the state columns' constraints. */
function migrationsBeforeStateChecks(): string {
  const dir = mkdtempSync(join(tmpdir(), 'caravel-before-state-checks-'));
  cpSync(defaultMigrationsDir(), dir, { recursive: true });
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  const stateChecks = names.find((name) => name.endsWith('_state_checks'));
  if (stateChecks === undefined) throw new Error('no *_state_checks migration');
  for (const name of names.filter((later) => later >= stateChecks)) {
    rmSync(join(dir, name), { recursive: true });
  }
  return dir;
}

/** An old database: every migration before the state checks, none of its constraints. */
async function openOld(options: { url: string }): Promise<Database> {
  const before = migrationsBeforeStateChecks();
  try {
    return await openDatabase({ ...options, migrationsDir: before });
  } finally {
    rmSync(before, { recursive: true, force: true });
  }
}

await describeEachDatabase('the state checks migration on an old database', openOld, (target) => {
  let database: Database;
  const threadId = randomUUID();
  const otherThreadId = randomUUID();
  const runId = randomUUID();

  beforeAll(async () => {
    database = await target.open();
    await sql`insert into threads (id, source, status) values
      (${threadId}, 'github', 'done'), (${otherThreadId}, 'gitlab', 'done')`.execute(database.db);
    await sql`insert into runs (id, thread_id, trigger_id, status)
      values (${runId}, ${threadId}, ${randomUUID()}, 'succeeded')`.execute(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  /** The CHECK constraints in the database, each with whether it was validated. */
  const checkConstraints = async (): Promise<Record<string, boolean>> => {
    const { rows } = await sql<{ name: string; validated: boolean }>`
      select conname as name, convalidated as validated from pg_constraint
      where contype = 'c' and connamespace = current_schema()::regnamespace`.execute(database.db);
    return Object.fromEntries(rows.map((row) => [row.name, row.validated]));
  };

  const stored = async () => ({
    threads: (
      await sql<{ source: string; status: string }>`
        select source, status from threads order by source`.execute(database.db)
    ).rows,
    runs: (await sql<{ status: string }>`select status from runs`.execute(database.db)).rows,
  });

  it('stops, naming every value outside its set, and changes nothing', async () => {
    const rows = await stored();
    const failure = migrate(database);
    await expect(failure).rejects.toThrow(
      "rows hold values outside their column's set; nothing was changed. " +
        'Correct or delete them, then start again (docs/db.md, "State columns"):\n' +
        "  threads.source: 'gitlab' (rows: 1)\n" +
        "  threads.status: 'done' (rows: 2)\n" +
        "  runs.status: 'succeeded' (rows: 1)",
    );
    expect(await stored()).toEqual(rows);
    expect(await checkConstraints()).toEqual({});
    const { rows: applied } = await sql<{ name: string }>`
      select name from _caravel_migrations where name like '%_state_checks'`.execute(database.db);
    expect(applied).toEqual([]);
  });

  it('applies once those rows are corrected', async () => {
    await sql`update threads set status = 'idle', source = 'github'`.execute(database.db);
    await sql`update runs set status = 'completed'`.execute(database.db);
    const { applied } = await migrate(database);
    expect(applied.some((name) => name.endsWith('_state_checks'))).toBe(true);
    const constraints = await checkConstraints();
    expect(constraints).toMatchObject({ runs_status_check: true, threads_status_check: true });
    expect(Object.values(constraints)).not.toContain(false);
  });
});
