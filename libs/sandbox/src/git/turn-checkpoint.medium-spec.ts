import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalSandboxProvider } from '../providers/local.provider.js';
import { BwrapSandboxProvider, bwrapAvailable } from '../providers/bwrap.provider.js';
import type { Sandbox, SandboxProvider } from '../sandbox.types.js';
import { applyBotIdentity } from './git-script.js';
import { snapshotTurn } from './turn-checkpoint.js';
import { turnDiff } from './turn-diff.js';

const quiet = { warn: () => undefined, info: () => undefined, error: () => undefined };
const providers: [string, (rootDir: string) => SandboxProvider][] = [
  ['local', (rootDir) => new LocalSandboxProvider({ rootDir, logger: quiet })],
];
if (bwrapAvailable()) providers.push(['bwrap', (rootDir) => new BwrapSandboxProvider({ rootDir })]);

/** HEAD, the index file's bytes and every worktree file's hash, in one string. */
const STATE =
  'git rev-parse HEAD; cat .git/HEAD; sha256sum .git/index; ' +
  'find . -path ./.git -prune -o -type f -print0 | sort -z | xargs -0 sha256sum';

describe.each(providers)('turn checkpoints on the %s provider', (_name, make) => {
  let root: string;
  let sandbox: Sandbox;

  const run = async (command: string): Promise<string> => {
    const result = await sandbox.exec(command);
    expect(result.exitCode).toBe(0);
    return result.output;
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'caravel-turns-'));
    await chmod(root, 0o755);
    sandbox = await make(root).create();
    await applyBotIdentity(sandbox, { name: 'caravel-bot', email: 'bot@caravel.test' });
    await run(
      'git init -q -b main && printf "*.log\\n" > .gitignore && printf "a\\n" > a.txt && printf "b\\n" > b.txt && ' +
        'printf "d\\n" > d.txt && git add . && git commit -qm base && printf "staged\\n" > s.txt && git add s.txt && ' +
        'printf "untracked\\n" > u.txt',
    );
  });

  afterEach(async () => {
    await sandbox.close();
    await rm(root, { recursive: true, force: true });
  });

  it('snapshots without touching HEAD, the index or the worktree', async () => {
    const before = await run(STATE);
    const checkpoint = await snapshotTurn(sandbox, 'm1');
    expect(checkpoint).toMatchObject({ ref: 'refs/caravel/turns/m1', created: true });
    expect(await run(STATE)).toBe(before);
    const listed = await run(`git ls-tree -r --name-only ${checkpoint.commit}`);
    expect(listed.split('\n').filter(Boolean)).toEqual([
      '.gitignore',
      'a.txt',
      'b.txt',
      'd.txt',
      's.txt',
      'u.txt',
    ]);
    expect(await run('git status --porcelain')).toBe('A  s.txt\n?? u.txt\n');
  });

  it('lists exactly the files a turn changed, through any command, reverts dropped', async () => {
    const first = await snapshotTurn(sandbox, 'm1');
    await run(
      "sed -i 's/a/A/' a.txt && rm b.txt && printf 'c\\n' > c.txt && printf 'noise\\n' > build.log && " +
        "cp d.txt /tmp/d && printf 'x\\n' >> d.txt && cp /tmp/d d.txt && printf 'e\\n' > e.txt && rm e.txt",
    );
    const expected = [
      { path: 'a.txt', status: 'modified' },
      { path: 'b.txt', status: 'deleted' },
      { path: 'c.txt', status: 'added' },
    ];
    expect(await turnDiff(sandbox, 'm1', 'worktree')).toEqual({
      files: expected,
      truncated: false,
      totalFiles: 3,
    });
    await snapshotTurn(sandbox, 'm2');
    expect((await turnDiff(sandbox, 'm1', 'm2')).files).toEqual(expected);
    expect((await turnDiff(sandbox, 'm2', 'worktree')).files).toEqual([]);
    const again = await snapshotTurn(sandbox, 'm1');
    expect(again).toMatchObject({ commit: first.commit, created: false });
  });

  it('caps the list and says so', async () => {
    await snapshotTurn(sandbox, 'm1');
    await run('for i in 1 2 3 4 5; do echo $i > "new $i.txt"; done');
    const diff = await turnDiff(sandbox, 'm1', 'worktree', { maxFiles: 2 });
    expect(diff).toEqual({
      files: [
        { path: 'new 1.txt', status: 'added' },
        { path: 'new 2.txt', status: 'added' },
      ],
      truncated: true,
      totalFiles: 5,
    });
  });

  it('snapshots a repository without commits, in a subdirectory', async () => {
    await run('mkdir fresh && (cd fresh && git init -q && echo hi > x.txt)');
    const checkpoint = await snapshotTurn(sandbox, 'first-message', { repoPath: 'fresh' });
    expect(checkpoint.created).toBe(true);
    await run('(cd fresh && echo more > y.txt)');
    const diff = await turnDiff(sandbox, 'first-message', 'worktree', { repoPath: 'fresh' });
    expect(diff.files).toEqual([{ path: 'y.txt', status: 'added' }]);
    expect(await run('(cd fresh && git rev-parse -q --verify HEAD || echo unborn)')).toBe(
      'unborn\n',
    );
  });

  it('refuses message ids git could not store and unknown checkpoints', async () => {
    await expect(snapshotTurn(sandbox, '../escape')).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    await expect(turnDiff(sandbox, 'missing', 'worktree')).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
  });
});
