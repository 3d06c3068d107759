import { execFileSync } from 'node:child_process';
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { prepareWorkspace } from './workspace-seed.js';

const asRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

describe('prepareWorkspace', () => {
  let dir: string;
  let remote: string;
  let hostFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-seed-spec-'));
    hostFile = join(dir, 'host-owned.txt');
    await writeFile(hostFile, 'the host\n');
    // A repository whose content links out to a host file (any repository may hold such a link).
    const source = join(dir, 'source');
    await mkdir(source);
    git(source, 'init', '--quiet', '--initial-branch=main');
    await writeFile(join(source, 'README.md'), 'hello\n');
    await symlink(hostFile, join(source, 'escape'));
    git(source, 'add', '.');
    git(source, 'commit', '--quiet', '-m', 'seed');
    remote = join(dir, 'remote.git');
    git(dir, 'clone', '--quiet', '--bare', source, remote);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('clones into the workdir on its branch, origin as asked', async () => {
    const workdir = join(dir, 'ws-plain', 'workspace');
    await mkdir(workdir, { recursive: true });
    const prepared = await prepareWorkspace({
      workdir,
      cloneUrl: remote,
      branch: 'caravel/x',
      origin: 'https://example.invalid/acme/widgets.git',
    });
    expect(prepared.baseCommit).toBe(git(remote, 'rev-parse', 'main'));
    expect(git(workdir, 'branch', '--show-current')).toBe('caravel/x');
    expect(git(workdir, 'remote', 'get-url', 'origin')).toBe(
      'https://example.invalid/acme/widgets.git',
    );
    expect(await readFile(join(workdir, 'README.md'), 'utf8')).toBe('hello\n');
  });

  it('refuses a workdir that is not empty', async () => {
    const workdir = join(dir, 'ws-full', 'workspace');
    await mkdir(workdir, { recursive: true });
    await writeFile(join(workdir, 'left.txt'), 'x');
    await expect(
      prepareWorkspace({ workdir, cloneUrl: remote, branch: 'caravel/x' }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  (asRoot ? it : it.skip)(
    'hands the tree to the sandbox user without following a link to a host file',
    async () => {
      const workdir = join(dir, 'ws-owned', 'workspace');
      await mkdir(workdir, { recursive: true });
      await prepareWorkspace({ workdir, cloneUrl: remote, branch: 'caravel/x', owner: NOBODY });
      expect((await lstat(join(workdir, 'escape'))).isSymbolicLink()).toBe(true);
      expect((await lstat(join(workdir, 'escape'))).uid).toBe(NOBODY.uid);
      expect((await stat(join(workdir, 'README.md'))).uid).toBe(NOBODY.uid);
      expect((await stat(join(workdir, '.git', 'HEAD'))).uid).toBe(NOBODY.uid);
      expect((await stat(hostFile)).uid).toBe(0);
    },
  );
});
