import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../sandbox.errors.js';
import { HostFs } from './workdir-fs.js';
import { resolveInWorkdir, type WorkdirRoots } from './workdir-paths.js';

describe('resolveInWorkdir', () => {
  const fs = new HostFs();
  let base: string;
  let roots: WorkdirRoots;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'caravel-paths-'));
    const host = join(base, 'ws');
    roots = { host, inner: '/workspace' };
    await mkdir(join(host, 'src'), { recursive: true });
    await writeFile(join(host, 'src/a.txt'), 'a');
    await symlink('src', join(host, 'rel-link'));
    await symlink('/workspace/src', join(host, 'inner-abs-link'));
    await symlink('/etc', join(host, 'etc-link'));
    await symlink('../..', join(host, 'src/up-link'));
  });

  afterAll(() => rm(base, { recursive: true, force: true }));

  const reason = async (path: string) =>
    resolveInWorkdir(fs, roots, path).then(
      () => 'resolved',
      (error: unknown) => sandboxErrorReason(error),
    );

  it('resolves relative, inner-absolute and host-absolute paths', async () => {
    const expected = join(roots.host, 'src/a.txt');
    for (const path of ['src/a.txt', './src//a.txt', '/workspace/src/a.txt', expected]) {
      expect(await resolveInWorkdir(fs, roots, path)).toEqual({
        hostPath: expected,
        relative: 'src/a.txt',
        exists: true,
      });
    }
  });

  it('follows symlinks that stay inside, reading absolute targets as sandbox paths', async () => {
    expect((await resolveInWorkdir(fs, roots, 'rel-link/a.txt')).relative).toBe('src/a.txt');
    expect((await resolveInWorkdir(fs, roots, 'inner-abs-link/a.txt')).relative).toBe('src/a.txt');
  });

  it('reports missing paths without refusing them', async () => {
    expect(await resolveInWorkdir(fs, roots, 'new/dir/file.txt')).toMatchObject({
      relative: 'new/dir/file.txt',
      exists: false,
    });
  });

  it('refuses .., absolute paths elsewhere and symlinks that lead out', async () => {
    for (const path of ['..', 'src/../../x', '/etc/passwd', 'etc-link/passwd', 'src/up-link/x']) {
      expect(await reason(path)).toBe('path_outside_workdir');
    }
    expect(await reason('bad\0path')).toBe('invalid_input');
  });
});
