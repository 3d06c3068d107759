import { AppError } from '@caravel/errors';
import { execFile } from 'node:child_process';
import { chown, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The bot's identity on every commit a run makes. */
export const BOT_IDENTITY = { name: 'Caravel', email: 'caravel@users.noreply.localhost' } as const;

/** Runs git on the host (outside any sandbox) with a fixed, non-interactive environment. */
export async function hostGit(cwd: string, args: readonly string[]): Promise<string> {
  try {
    const { stdout } = await run('git', ['-c', 'safe.directory=*', ...args], {
      cwd,
      env: { PATH: '/usr/bin:/bin', GIT_TERMINAL_PROMPT: '0', HOME: cwd },
      maxBuffer: 64 * 1024 * 1024,
    });
    return stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new AppError('PRECONDITION_FAILED', `git ${args[0] ?? ''} failed: ${stderr.trim()}`);
  }
}

async function chownTree(path: string, uid: number, gid: number): Promise<void> {
  await chown(path, uid, gid);
  if (!(await stat(path)).isDirectory()) return;
  for (const entry of await readdir(path)) await chownTree(join(path, entry), uid, gid);
}

export interface PreparedWorkspace {
  branch: string;
  baseCommit: string;
}

/**
 * Fills an empty workdir: a clone of `cloneUrl` (or a fresh repository), the bot identity, and
 * the run's branch. Done on the host because the sandbox has no network and cannot see the source.
 */
export async function prepareWorkspace(options: {
  workdir: string;
  cloneUrl?: string;
  baseBranch?: string;
  /** Start the branch at this commit instead of the clone's HEAD (replay); must exist there. */
  startAt?: string;
  branch: string;
  owner?: { uid: number; gid: number };
}): Promise<PreparedWorkspace> {
  const { workdir } = options;
  if (options.cloneUrl) {
    const branchArgs = options.baseBranch ? ['--branch', options.baseBranch] : [];
    await hostGit(workdir, ['clone', '--quiet', ...branchArgs, options.cloneUrl, '.']);
  } else {
    await hostGit(workdir, ['init', '--quiet', '--initial-branch=main']);
    await hostGit(workdir, [
      '-c',
      `user.name=${BOT_IDENTITY.name}`,
      '-c',
      `user.email=${BOT_IDENTITY.email}`,
      'commit',
      '--quiet',
      '--allow-empty',
      '-m',
      'Start',
    ]);
  }
  await hostGit(workdir, ['config', 'user.name', BOT_IDENTITY.name]);
  await hostGit(workdir, ['config', 'user.email', BOT_IDENTITY.email]);
  if (options.startAt) {
    await hostGit(workdir, ['cat-file', '-e', `${options.startAt}^{commit}`]).catch(() => {
      throw new AppError(
        'NOT_FOUND',
        `commit ${options.startAt} is not in ${options.cloneUrl ?? 'the workspace'}`,
      );
    });
  }
  await hostGit(workdir, [
    'checkout',
    '--quiet',
    '-B',
    options.branch,
    ...(options.startAt ? [options.startAt] : []),
  ]);
  const baseCommit = await hostGit(workdir, ['rev-parse', 'HEAD']);
  if (options.owner) await chownTree(workdir, options.owner.uid, options.owner.gid);
  return { branch: options.branch, baseCommit };
}
