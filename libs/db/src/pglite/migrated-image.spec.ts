import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { saveMigratedImage } from './migrated-image.js';

const HOUR_S = 3_600;

describe('the migrated images kept in the cache', () => {
  let dir: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-images-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** A file in the cache, last written `hoursAgo` hours ago. */
  async function cached(name: string, hoursAgo: number): Promise<void> {
    const path = join(dir, name);
    await writeFile(path, 'image');
    const at = Date.now() / 1000 - hoursAgo * HOUR_S;
    await utimes(path, at, at);
  }

  it('keeps the new image and the two most recent others, and drops abandoned partial writes', async () => {
    await cached('pglite-migrated-0.5.14-aaaa.tar', 5);
    await cached('pglite-migrated-0.5.14-bbbb.tar', 4);
    await cached('pglite-migrated-0.5.14-cccc.tar', 3);
    await cached('pglite-migrated-0.5.14-dddd.tar', 2);
    await cached('pglite-migrated-0.5.14-eeee.tar.123-dead', 2);
    await cached('pglite-migrated-0.5.14-ffff.tar.456-live', 0);
    await cached('pglite-cluster-0.5.14.tar', 9);

    await saveMigratedImage(join(dir, 'pglite-migrated-0.5.14-new1.tar'), new Blob(['new']));

    expect((await readdir(dir)).sort()).toEqual([
      'pglite-cluster-0.5.14.tar',
      'pglite-migrated-0.5.14-cccc.tar',
      'pglite-migrated-0.5.14-dddd.tar',
      'pglite-migrated-0.5.14-ffff.tar.456-live',
      'pglite-migrated-0.5.14-new1.tar',
    ]);
  });

  it('removes nothing when writing the image fails', async () => {
    await cached('pglite-migrated-0.5.14-aaaa.tar', 5);
    await cached('pglite-migrated-0.5.14-bbbb.tar', 4);
    await cached('pglite-migrated-0.5.14-cccc.tar', 3);

    // Its folder is a file: the image cannot be written.
    await saveMigratedImage(
      join(dir, 'pglite-migrated-0.5.14-aaaa.tar', 'pglite-migrated-0.5.14-new1.tar'),
      new Blob(['new']),
    );

    expect(await readdir(dir)).toHaveLength(3);
  });
});
