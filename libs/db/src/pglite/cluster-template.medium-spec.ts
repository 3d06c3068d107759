import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  clusterImageFile,
  clusterTemplateDir,
  initialiseCluster,
  memoryClusterImage,
} from './cluster-template.js';

describe('new PGlite data directories copied from a cluster template', () => {
  let scratch: string;
  const dir = (name: string) => join(scratch, name);

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'caravel-cluster-template-'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('builds one template when two processes need it at once, and copies it into each', async () => {
    const cache = dir('cache');
    const made = await Promise.all([
      initialiseCluster(dir('first'), cache),
      initialiseCluster(dir('second'), cache),
    ]);
    expect(made).toEqual(['copied', 'copied']);
    const template = clusterTemplateDir(cache);
    expect(existsSync(join(template, 'PG_VERSION'))).toBe(true);
    // The loser of the race removed its own build: only the template is left.
    expect(await readdir(join(cache, 'caravel'))).toEqual([template.split('/').pop()]);

    // In-memory databases start from the same cluster, as a tar image made once from a copy.
    const image = await memoryClusterImage(cache);
    expect(image).not.toBeNull();
    expect(existsSync(clusterImageFile(cache))).toBe(true);
    const memory = await PGlite.create({ loadDataDir: image ?? undefined });
    try {
      expect((await memory.query<{ n: number }>('select 41 + 1 as n')).rows).toEqual([{ n: 42 }]);
    } finally {
      await memory.close();
    }
    expect((await readdir(join(cache, 'caravel'))).sort()).toEqual(
      [template, clusterImageFile(cache)].map((path) => path.split('/').pop()).sort(),
    );

    // A later directory is a copy of that template, not an initdb of its own, and opens.
    await writeFile(join(template, 'copied-from-template'), 'yes');
    expect(await initialiseCluster(dir('third'), cache)).toBe('copied');
    expect(existsSync(join(dir('third'), 'copied-from-template'))).toBe(true);
    const pg = await PGlite.create({ dataDir: dir('third') });
    try {
      await pg.exec('create table t (n int); insert into t values (7)');
      expect((await pg.query<{ n: number }>('select n from t')).rows).toEqual([{ n: 7 }]);
    } finally {
      await pg.close();
    }
    // Two initdbs side by side, then a copy and two opens: CPU-bound WASM work that took 85 s
    // on CI's loaded machine (16 s quiet), past the 60 s a medium test has by default.
  }, 300_000);

  it('initialises the directory itself when the cache cannot be written', async () => {
    const notAFolder = dir('cache-file');
    await writeFile(notAFolder, 'in the way');
    await mkdir(dir('fallback'));
    expect(await initialiseCluster(dir('fallback'), notAFolder)).toBe('initdb');
    expect(existsSync(join(dir('fallback'), 'PG_VERSION'))).toBe(true);
  }, 180_000);
});
