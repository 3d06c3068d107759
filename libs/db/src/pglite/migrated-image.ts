import { createHash, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { MigrationFile } from '../migrations/migration-files.js';
import { pgliteVersion } from './cluster-template.js';

const execFileAsync = promisify(execFile);

/** Images of other migration sets kept beside the newest (another checkout, a rollback). */
const OTHER_IMAGES_KEPT = 2;
/** A partial image older than this was left by a writer that died. */
const ABANDONED_PARTIAL_MS = 3_600_000;
const IMAGE_NAME = /^pglite-migrated-.+\.tar$/;
const PARTIAL_NAME = /^pglite-migrated-.+\.tar\..+$/;

/** Identifies a set of migrations: their names and checksums, in order. */
export function migrationsKey(files: readonly MigrationFile[]): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.name}\0${file.checksum}\n`);
  return hash.digest('hex').slice(0, 16);
}

/** Where the image of a cluster with exactly `files` applied is kept under `cacheRoot`. */
export function migratedImageFile(cacheRoot: string, files: readonly MigrationFile[]): string {
  return join(
    cacheRoot,
    'caravel',
    `pglite-migrated-${pgliteVersion()}-${migrationsKey(files)}.tar`,
  );
}

/** The image file, when there is one. */
export function existingImage(file: string): Promise<string | null> {
  return Promise.resolve(existsSync(file) ? file : null);
}

/**
 * Unpacks a cluster's tar image into the (empty) data directory `dataDir` with the system's `tar`;
 * false, with the directory emptied again, when it cannot (no `tar`, a damaged image).
 */
export async function unpackImage(file: string, dataDir: string): Promise<boolean> {
  try {
    // PGlite writes its members as absolute paths; GNU tar strips the leading slash.
    await execFileAsync('tar', ['-xf', file, '-C', dataDir, '--no-same-owner'], {
      timeout: 120_000,
    });
    return true;
  } catch {
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true });
    return false;
  }
}

/**
 * Keeps a freshly migrated cluster's image for the next new database: written beside its place
 * and renamed into it, so a reader sees a whole image or none. Best effort: a cache that cannot
 * be written only means the next database migrates too.
 */
export async function saveMigratedImage(file: string, image: Blob): Promise<void> {
  const partial = `${file}.${process.pid}-${randomUUID().slice(0, 8)}`;
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(partial, Buffer.from(await image.arrayBuffer()));
    await rename(partial, file);
  } catch {
    await rm(partial, { force: true }).catch(() => undefined);
    return;
  }
  await pruneImages(file).catch(() => undefined);
}

/**
 * Each new set of migrations writes an image of its own (about 40 MB): beside `kept`, only the
 * {@link OTHER_IMAGES_KEPT} most recent others stay, and partial images abandoned by a writer
 * that died go. Removing an image another process is unpacking is safe (it keeps reading it);
 * a process that finds its image gone migrates once and writes it again.
 */
export async function pruneImages(kept: string, now = Date.now()): Promise<void> {
  const dir = dirname(kept);
  const entries = await Promise.all(
    (await readdir(dir)).map(async (name) => {
      const path = join(dir, name);
      const modified = await stat(path).then(
        (s) => s.mtimeMs,
        () => null,
      );
      return { name, path, modified };
    }),
  );
  const others = entries
    .filter((e) => e.modified !== null && IMAGE_NAME.test(e.name) && e.name !== basename(kept))
    .sort((a, b) => (b.modified ?? 0) - (a.modified ?? 0));
  const abandoned = entries.filter(
    (e) =>
      PARTIAL_NAME.test(e.name) && e.modified !== null && now - e.modified > ABANDONED_PARTIAL_MS,
  );
  for (const entry of [...others.slice(OTHER_IMAGES_KEPT), ...abandoned]) {
    await rm(entry.path, { force: true });
  }
}
