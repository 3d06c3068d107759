import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ConfinedFs, spawnedHelper, type ConfinedSpawner, type FileHelper } from './confined-fs.js';

// The helper's protocol, with the helper started as a plain host process (no confinement):
// bubblewrap's part is covered where the provider starts it.
const plainNode: ConfinedSpawner = (node, args) =>
  Promise.resolve({ file: node, args, env: { PATH: '/usr/bin:/bin' } });

describe('ConfinedFs (the file helper protocol)', () => {
  let dir: string;
  let fs: ConfinedFs;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-confined-fs-'));
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'a.txt'), 'alpha\n');
    await symlink('src', join(dir, 'link'));
    fs = new ConfinedFs(spawnedHelper(plainNode));
  });

  afterAll(async () => {
    await fs.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers lstat, stat, readlink and readdir with types and sizes', async () => {
    expect(await fs.lstat(join(dir, 'missing'))).toBeUndefined();
    expect(await fs.lstat(join(dir, 'src', 'a.txt', 'below'))).toBeUndefined();
    expect(await fs.lstat(join(dir, 'link'))).toMatchObject({ type: 'symlink' });
    expect(await fs.stat(join(dir, 'link'))).toMatchObject({ type: 'directory' });
    expect(await fs.readlink(join(dir, 'link'))).toBe('src');
    const entries = await fs.readdir(join(dir, 'src'));
    expect(entries).toEqual([{ name: 'a.txt', type: 'file', size: 6 }]);
  });

  it('writes and reads bytes, creating parents, and refuses reads past the cap', async () => {
    const bytes = new Uint8Array([0, 1, 2, 255, 10]);
    await fs.writeFile(join(dir, 'new', 'deep', 'bin.dat'), bytes);
    expect([...(await readFile(join(dir, 'new', 'deep', 'bin.dat')))]).toEqual([...bytes]);
    expect([...(await fs.readFile(join(dir, 'new', 'deep', 'bin.dat'), 100))]).toEqual([...bytes]);
    await expect(fs.readFile(join(dir, 'src', 'a.txt'), 3)).rejects.toMatchObject({
      code: 'EFBIG',
    });
    await expect(fs.readFile(join(dir, 'src'), 100)).rejects.toMatchObject({ code: 'EISDIR' });
    await expect(fs.stat(join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('answers concurrent requests each with its own answer', async () => {
    const names = Array.from({ length: 50 }, (_, index) => `file-${index}.txt`);
    await Promise.all(
      names.map((name) => fs.writeFile(join(dir, 'many', name), Buffer.from(name))),
    );
    const read = await Promise.all(
      names.map(async (name) => (await fs.readFile(join(dir, 'many', name), 100)).toString()),
    );
    expect(read).toEqual(names);
  });

  it('starts a new helper after the old one died, and refuses calls once closed', async () => {
    const started: FileHelper[] = [];
    const start = spawnedHelper(plainNode);
    const own = new ConfinedFs(async (nodeArgs) => {
      const helper = await start(nodeArgs);
      started.push(helper);
      return helper;
    });
    expect(await own.lstat(dir)).toMatchObject({ type: 'directory' });
    const [first] = started;
    if (!first) throw new Error('no helper started');
    const gone = own.readdir(dir);
    // A helper dying while a request is written fails the write with EPIPE on its stdin: that
    // must fail the request (through the exit), never throw in the host process.
    first.process.stdin.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    first.end();
    await gone.catch(() => undefined);
    expect(await own.lstat(join(dir, 'src'))).toMatchObject({ type: 'directory' });
    expect(started).toHaveLength(2);
    await own.close();
    await expect(own.lstat(dir)).rejects.toMatchObject({
      details: { reason: 'session_closed' },
    });
  });

  it('fails every operation, naming why, when the helper program is missing', async () => {
    // What a container image without node gives (see containerFileHelperCommand): exit 127.
    const missing = new ConfinedFs(
      spawnedHelper(() =>
        Promise.resolve({
          file: '/bin/sh',
          args: ['-c', 'echo "no node in this image" >&2; exit 127'],
          env: {},
        }),
      ),
    );
    for (const attempt of [1, 2]) {
      const failure = await missing.readFile(join(dir, 'src', 'a.txt'), 100).then(
        () => null,
        (error: unknown) => error,
      );
      expect({ attempt, failure }).toMatchObject({
        attempt,
        failure: {
          details: { reason: 'unsupported' },
          message: expect.stringContaining('no node in this image'),
        },
      });
    }
    await missing.close();
  });
});
