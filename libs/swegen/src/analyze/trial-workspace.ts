import { execFile } from 'node:child_process';
import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { swegenError } from '../errors/swegen-errors.js';
import type { BuiltEnvironment } from '../validate/host-build.js';

const run = promisify(execFile);

/** The host directory of the environment's working directory (the repository, /app/src). */
export function hostWorkdir(environment: BuiltEnvironment): string {
  const inner = posix.relative('/app', environment.workdir);
  if (inner.startsWith('..'))
    throw swegenError(
      'invalid_input',
      `the task's WORKDIR ${environment.workdir} is not under /app: an agent trial needs its repository there`,
    );
  return join(environment.appDir, inner);
}

/**
 * Makes `to` hold exactly what `from` holds, owners and modes kept. `to` itself stays (a
 * sandbox's workspace is bind-mounted by its live session); only its entries are replaced.
 */
export async function copyTree(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(to))
    await rm(join(to, entry), { recursive: true, force: true });
  await run('cp', ['-a', `${from}/.`, to]);
}

/**
 * The agent's changes to the repository, tracked in a git directory of its own outside the
 * workspace (the environment removed the repository's `.git`): `snapshot` records the tree
 * before the agent, `diff` compares the working tree after it (`.gitignore` respected).
 */
export class ChangeTracker {
  private tree?: string;

  constructor(
    private readonly workTree: string,
    private readonly gitDir: string,
  ) {}

  private git(args: readonly string[]): Promise<string> {
    const where = [`--git-dir=${this.gitDir}`, `--work-tree=${this.workTree}`];
    // The work tree is the agent's: only the git directory (the host's) configures git, and
    // nothing it could name (hooks, a monitor, diff or filter programs) runs.
    const settings = [
      'core.quotepath=false',
      'safe.directory=*',
      'core.hooksPath=/dev/null',
      'core.fsmonitor=false',
    ].flatMap((setting) => ['-c', setting]);
    return run('git', [...where, ...settings, ...args], {
      cwd: this.workTree,
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: '/dev/null',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_ATTR_NOSYSTEM: '1',
      },
      maxBuffer: 256 * 1024 * 1024,
    }).then((r) => r.stdout);
  }

  async snapshot(): Promise<void> {
    await this.git(['init', '--quiet']);
    await this.git(['add', '--all']);
    this.tree = (await this.git(['write-tree'])).trim();
  }

  /** The unified diff and the changed paths since the snapshot. */
  async diff(): Promise<{ diff: string; paths: string[] }> {
    if (!this.tree) return { diff: '', paths: [] };
    await this.git(['add', '--all']);
    const names = await this.git(['diff', '--cached', '--name-only', '-z', this.tree]);
    const diff = await this.git([
      'diff',
      '--cached',
      '--no-color',
      '--no-ext-diff',
      '--no-textconv',
      this.tree,
    ]);
    return { diff, paths: names.split('\0').filter(Boolean) };
  }
}
