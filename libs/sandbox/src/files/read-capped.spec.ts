import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfinedFs, spawnedHelper, type ConfinedSpawner } from './confined-fs.js';
import { HostFs, type WorkdirFs } from './workdir-fs.js';

// The host reads through HostFs; inside a sandbox the file helper reads with its own plain copy
// of the same code (it cannot import the host's). Both are held to the same cases here.
const plainNode: ConfinedSpawner = (node, args) =>
  Promise.resolve({ file: node, args, env: { PATH: '/usr/bin:/bin' } });

/**
 * A regular file whose size says 0 and that holds more than a first read (8 KiB): the reading
 * process's memory map, tens of KiB for any Node process. In effect, a file read while it grows.
 */
const SIZE_SAYS_ZERO_AND_LARGE = '/proc/self/smaps';

describe.each([
  ['the host (HostFs)', () => new HostFs()],
  ['the sandbox file helper (ConfinedFs)', () => new ConfinedFs(spawnedHelper(plainNode))],
] as const)('a capped read through %s', (_name, open: () => WorkdirFs & { close?(): unknown }) => {
  let dir: string;
  let fs: WorkdirFs & { close?(): unknown };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-read-capped-'));
    await writeFile(join(dir, 'ten.txt'), '0123456789');
    await writeFile(join(dir, 'large.bin'), Buffer.alloc(100_000, 7));
    fs = open();
  });

  afterAll(async () => {
    await fs.close?.();
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file whole up to the cap, and refuses one byte more', async () => {
    expect((await fs.readFile(join(dir, 'ten.txt'), 10)).toString()).toBe('0123456789');
    await expect(fs.readFile(join(dir, 'ten.txt'), 9)).rejects.toMatchObject({ code: 'EFBIG' });
    await expect(fs.readFile(dir, 100)).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('reads a file larger than its first read whole', async () => {
    const read = await fs.readFile(join(dir, 'large.bin'), 100_000);
    expect(read.length).toBe(100_000);
    expect(read.every((byte) => byte === 7)).toBe(true);
  });

  it('reads to the end of a file whose size said less, or refuses it: never cuts it short', async () => {
    const whole = await readFile('/proc/version');
    expect(whole.length).toBeGreaterThan(20);
    expect((await fs.readFile('/proc/version', 4096)).equals(whole)).toBe(true);
    await expect(fs.readFile('/proc/version', whole.length - 1)).rejects.toMatchObject({
      code: 'EFBIG',
    });
    const smaps = await fs.readFile(SIZE_SAYS_ZERO_AND_LARGE, 1 << 20);
    expect(smaps.length).toBeGreaterThan(8192);
    expect(smaps.toString()).toMatch(/\n$/);
  });
});
