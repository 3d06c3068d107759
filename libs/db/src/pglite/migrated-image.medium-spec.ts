import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { openDatabase } from '../connection/open-database.js';
import { readMigrationFiles } from '../migrations/migration-files.js';
import { defaultMigrationsDir } from '../migrations/migrations-dir.js';
import { migratedImageFile, existingImage } from './migrated-image.js';
import { openPglite } from './open-pglite.js';

describe('new PGlite databases started from a migrated image', () => {
  let scratch: string;
  let cacheRoot: string;
  const files = readMigrationFiles(defaultMigrationsDir());

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'caravel-migrated-image-'));
    cacheRoot = join(scratch, 'cache');
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  /** Opens `url` and says which migrations it applied. */
  async function open(url: string) {
    const applied: string[] = [];
    const logger = {
      log: (message: string) => {
        if (message.startsWith('applied migration')) applied.push(message);
      },
      warn: () => undefined,
    };
    const database = await openDatabase({ url, cacheRoot, logger });
    const recorded = await sql<{ n: number }>`select count(*)::int as n from _caravel_migrations`
      .execute(database.db)
      .then((result) => result.rows[0]?.n);
    await database.close();
    return { applied: applied.length, recorded };
  }

  it('migrates the first new database, keeps its image, and starts later ones from it', async () => {
    const image = migratedImageFile(cacheRoot, files);
    expect(await open(`pglite:${join(scratch, 'first')}`)).toEqual({
      applied: files.length,
      recorded: files.length,
    });
    expect(existsSync(image)).toBe(true);

    // A new data directory and an in-memory database: every migration already there.
    expect(await open(`pglite:${join(scratch, 'second')}`)).toEqual({
      applied: 0,
      recorded: files.length,
    });
    expect(await open('pglite:memory')).toEqual({ applied: 0, recorded: files.length });
    // Reopening a directory made from the image is an ordinary reopen.
    expect(await open(`pglite:${join(scratch, 'second')}`)).toEqual({
      applied: 0,
      recorded: files.length,
    });
    // Five PGlite opens, one a full migration: CPU-bound WASM work, slow on a loaded machine.
  }, 240_000);

  it('is read only to make a cluster, never to reopen a data directory', async () => {
    const image = migratedImageFile(cacheRoot, files);
    const dir = join(scratch, 'reopened');
    let reads = 0;
    const source = () => {
      reads += 1;
      return existingImage(image);
    };
    const silent = { log: () => undefined, warn: () => undefined };
    for (const expected of [
      { fresh: true, reads: 1 },
      { fresh: false, reads: 1 },
    ]) {
      const opened = await openPglite(dir, silent, source, cacheRoot);
      await opened.database.close();
      expect({ fresh: opened.fresh, reads }).toEqual(expected);
    }
  });

  it('makes a cluster of its own from a damaged image, and migrates it', async () => {
    const damagedRoot = join(scratch, 'damaged-cache');
    const image = migratedImageFile(damagedRoot, files);
    await mkdir(dirname(image), { recursive: true });
    await writeFile(image, 'not a tar archive');
    const database = await openDatabase({
      url: `pglite:${join(scratch, 'damaged')}`,
      cacheRoot: damagedRoot,
    });
    const recorded = await sql<{ n: number }>`select count(*)::int as n from _caravel_migrations`
      .execute(database.db)
      .then((result) => result.rows[0]?.n);
    await database.close();
    expect(recorded).toBe(files.length);
  }, 180_000);

  it('is named by the migrations: another set of migrations has an image of its own', () => {
    const fewer = files.slice(0, -1);
    expect(migratedImageFile(cacheRoot, fewer)).not.toBe(migratedImageFile(cacheRoot, files));
  });
});
