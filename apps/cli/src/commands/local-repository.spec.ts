import { hostGit } from '@caravel/sandbox';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { localRepository } from './local-repository.js';

describe('localRepository', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'caravel-local-repo-spec-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('uses a repository of its own in place, copying nothing', async () => {
    const own = join(root, 'own');
    await mkdir(own);
    await hostGit(own, ['init', '--quiet']);
    const dataDir = join(root, 'data-own');
    await mkdir(dataDir);
    expect(await localRepository(own, { copyInto: dataDir })).toEqual({ path: own, name: 'own' });
    expect(await readdir(dataDir)).toEqual([]);
  });

  it("copies a directory that is not its own repository into the command's data directory", async () => {
    const parent = join(root, 'parent');
    const plain = join(parent, 'sample');
    await mkdir(join(plain, 'node_modules'), { recursive: true });
    await writeFile(join(plain, 'a.txt'), 'a\n');
    await writeFile(join(plain, 'node_modules', 'big.js'), 'x\n');
    await hostGit(parent, ['init', '--quiet']);
    const dataDir = join(root, 'data-copy');
    const repository = await localRepository(plain, { copyInto: dataDir });
    expect(repository).toEqual({
      path: join(dataDir, 'repository', 'sample'),
      name: 'sample',
      copiedFrom: plain,
    });
    expect(await hostGit(repository.path, ['ls-files'])).toBe('a.txt');
    expect(await hostGit(repository.path, ['rev-parse', '--show-toplevel'])).toBe(repository.path);
  });

  it('refuses a path that is not a directory', async () => {
    await expect(localRepository(join(root, 'missing'), { copyInto: root })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      message: expect.stringContaining('no such directory'),
    });
  });
});
