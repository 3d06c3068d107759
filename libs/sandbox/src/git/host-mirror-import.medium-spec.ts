import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { isAppError } from '@caravel/errors';
import { HostMirror } from './host-mirror.js';

const git = (cwd: string, args: readonly string[], input?: string) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
    cwd,
    encoding: 'utf8',
    ...(input === undefined ? {} : { input }),
  }).trim();

/**
 * A sandbox's commits arrive as a bundle git made inside the sandbox: whatever objects it holds
 * were written by the agent's git, or by hand (`git mktree` takes any entry name), as git's own
 * fsck tests craft them (t7415, t1450). git 2.39's `git fetch <bundle>` ignores
 * `fetch.fsckObjects`, so the mirror must check them itself before they are used or pushed.
 */
describe('HostMirror.import of a sandbox bundle', () => {
  let dir: string;
  let sandboxRepo: string;
  let base: string;
  let bundles = 0;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-mirror-import-'));
    sandboxRepo = join(dir, 'sandbox');
    git(dir, ['init', '--quiet', '--initial-branch=main', sandboxRepo]);
    git(sandboxRepo, ['commit', '--quiet', '--allow-empty', '-m', 'base']);
    base = git(sandboxRepo, ['rev-parse', 'HEAD']);
  });

  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** A mirror holding the base, as the host's mirror holds the remote. */
  async function mirror(): Promise<HostMirror> {
    const made = await HostMirror.init(join(dir, `mirror-${(bundles += 1)}.git`));
    git(made.path, ['fetch', '--quiet', sandboxRepo, `${base}:refs/heads/main`]);
    return made;
  }

  /** A commit on `branch` over the base whose tree holds `entries`, bundled as exportRef does. */
  function commitBundle(branch: string, entries: Readonly<Record<string, string>>) {
    const lines = Object.entries(entries).map(([name, content]) => {
      const blob = git(sandboxRepo, ['hash-object', '-w', '--stdin'], content);
      return `100644 blob ${blob}\t${name}\n`;
    });
    const tree = git(sandboxRepo, ['mktree'], lines.join(''));
    const tip = git(sandboxRepo, ['commit-tree', tree, '-p', base, '-m', branch]);
    git(sandboxRepo, ['update-ref', `refs/heads/${branch}`, tip]);
    const bundle = join(dir, `${branch}.bundle`);
    git(sandboxRepo, ['bundle', 'create', '--quiet', bundle, `refs/heads/${branch}`, `^${base}`]);
    return { tip, tree, bundle };
  }

  const hasObject = (repo: HostMirror, id: string) => {
    try {
      git(repo.path, ['cat-file', '-e', id]);
      return true;
    } catch {
      return false;
    }
  };

  it('takes in a bundle of ordinary commits', async () => {
    const host = await mirror();
    const exported = commitBundle('ordinary', { 'README.md': 'hello\n' });
    await expect(host.import(exported, 'refs/heads/ordinary', 'refs/caravel/work/x')).resolves.toBe(
      exported.tip,
    );
  });

  const hostile = [
    { entry: '.GIT', content: 'x\n', check: 'hasDotgit' },
    { entry: '.git', content: 'x\n', check: 'hasDotgit' },
    { entry: '..', content: 'x\n', check: 'hasDotdot' },
    {
      entry: '.gitmodules',
      content: '[submodule "../../modules/evil"]\n\tpath = evil\n\turl = https://example.com/x\n',
      check: 'gitmodulesName',
    },
  ];

  for (const { entry, content, check } of hostile) {
    it(`refuses a bundle whose tree has an entry ${entry} (${check}), taking in nothing`, async () => {
      const host = await mirror();
      const branch = `hostile-${bundles}`;
      const exported = commitBundle(branch, { [entry]: content });
      const refused = await host
        .import(exported, `refs/heads/${branch}`, 'refs/caravel/work/x')
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(isAppError(refused)).toBe(true);
      expect(refused).toMatchObject({
        code: 'PRECONDITION_FAILED',
        message: expect.stringMatching(/^the sandbox's commits were refused: /),
        details: { reason: 'sandbox_objects_refused' },
      });
      expect((refused as Error).message).toContain(check);
      expect((refused as Error).message).not.toMatch(/\n|\s+at /);
      expect(hasObject(host, exported.tree)).toBe(false);
      expect(hasObject(host, exported.tip)).toBe(false);
      expect(() => git(host.path, ['rev-parse', '--verify', 'refs/caravel/work/x'])).toThrow();
      // The quarantine the objects were checked in is gone.
      expect(await readdir(join(host.path, 'objects'))).not.toContainEqual(
        expect.stringMatching(/^caravel-check-/),
      );
    });
  }

  it('refuses an export that is not a git bundle', async () => {
    const host = await mirror();
    const bundle = join(dir, 'not-a.bundle');
    await writeFile(bundle, 'PACK and then some\n\n');
    await expect(
      host.import({ tip: base, bundle }, 'refs/heads/main', 'refs/caravel/work/x'),
    ).rejects.toMatchObject({
      message: "the sandbox's commits were refused: the export is not a git bundle",
    });
  });
});
