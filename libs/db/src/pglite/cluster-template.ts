import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { initdbInChild, needsInitdb } from './pglite-options.js';

/** The installed PGlite's version: a template is only ever copied into the same version. */
export function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (name === '@electric-sql/pglite' && version) return version;
    }
    const parent = dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}

/** The user's cache folder, `~/.cache`. */
export function defaultCacheRoot(): string {
  return join(homedir(), '.cache');
}

/** Where this PGlite version's initialised cluster is kept under `cacheRoot`. */
export function clusterTemplateDir(cacheRoot: string): string {
  return join(cacheRoot, 'caravel', `pglite-cluster-${pgliteVersion()}`);
}

/**
 * Makes the template once: initdb into a folder of its own, then renamed into place, so a
 * template is either whole or absent, and two processes building it at once both end with one
 * (the second rename loses, and its copy is removed). False when it could not be made.
 */
async function ensureTemplate(template: string): Promise<boolean> {
  if (!needsInitdb(template)) return true;
  const building = `${template}.building-${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    await mkdir(dirname(template), { recursive: true });
    if (!(await initdbInChild(building))) return false;
    await rename(building, template).catch(() => undefined);
    return !needsInitdb(template);
  } catch {
    return false;
  } finally {
    await rm(building, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Creates a fresh cluster in the empty `dataDir`. A freshly initialised cluster is the same for
 * every data directory of one PGlite version, and initdb costs ~3 s of CPU on an idle machine
 * (15 s and more on a busy one) in a process of ~800 MB. So the first initdb on a machine is kept
 * as a template in the user's cache folder, and each later data directory (every `caravel run`
 * uses a new one, and so does every test platform) is a copy of it: ~0.1 s for its ~40 MB. When
 * the cache cannot be written, initdb runs in `dataDir` directly. Resolves with how it was made.
 */
export async function initialiseCluster(
  dataDir: string,
  cacheRoot: string = defaultCacheRoot(),
): Promise<'copied' | 'initdb'> {
  const template = clusterTemplateDir(cacheRoot);
  if (await ensureTemplate(template)) {
    try {
      await cp(template, dataDir, { recursive: true });
      if (!needsInitdb(dataDir)) return 'copied';
    } catch {
      // Fall through to a cluster of its own, in an emptied data directory.
    }
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true });
  }
  await initdbInChild(dataDir);
  return 'initdb';
}

/** Where this PGlite version's cluster is kept as a tar image, for in-memory databases. */
export function clusterImageFile(cacheRoot: string): string {
  return `${clusterTemplateDir(cacheRoot)}.tar`;
}

/** Dumps a copy of the template (never the template itself: opening a cluster writes to it). */
async function buildImage(cacheRoot: string, image: string): Promise<void> {
  const template = clusterTemplateDir(cacheRoot);
  if (!(await ensureTemplate(template))) throw new Error('no cluster template');
  const scratch = await mkdtemp(`${template}.image-`);
  try {
    await cp(template, scratch, { recursive: true });
    const pg = await PGlite.create({ dataDir: scratch });
    const dump = await pg.dumpDataDir('none').finally(() => pg.close());
    await writeFile(`${scratch}.tar`, Buffer.from(await dump.arrayBuffer()));
    await rename(`${scratch}.tar`, image);
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await rm(`${scratch}.tar`, { force: true });
  }
}

const images = new Map<string, Promise<Blob | null>>();

/**
 * The template as a tar image for an in-memory PGlite (`loadDataDir`), made once per machine:
 * an in-memory database then starts in ~1 s instead of an initdb (8 s on a loaded 2-core
 * machine; tests open one per file). Null when it cannot be made (the caller runs initdb).
 */
export function memoryClusterImage(cacheRoot: string = defaultCacheRoot()): Promise<Blob | null> {
  let image = images.get(cacheRoot);
  if (!image) {
    const file = clusterImageFile(cacheRoot);
    image = (async () => {
      try {
        if (!existsSync(file)) await buildImage(cacheRoot, file);
        return new Blob([await readFile(file)]);
      } catch {
        return null;
      }
    })();
    images.set(cacheRoot, image);
  }
  return image;
}
