import { AppError } from '@caravel/errors';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { BOT_IDENTITY, BOT_IDENTITY_ENV, hostGit } from './host-git.js';

const run = promisify(execFile);

export interface PreparedWorkspace {
  branch: string;
  baseCommit: string;
}

export interface PrepareWorkspaceOptions {
  /** An empty directory: the sandbox's workdir (it may already belong to the sandbox user). */
  readonly workdir: string;
  /** What to clone (a path or URL the host reads); absent: a fresh repository with one commit. */
  readonly cloneUrl?: string;
  readonly baseBranch?: string;
  /** Start the branch at this commit instead of the clone's HEAD (replay); must exist there. */
  readonly startAt?: string;
  /** Start the branch at this ref of the source, fetched after the clone (a sandbox's export). */
  readonly startRef?: string;
  readonly branch: string;
  /** The remote the workdir names `origin`: a URL, or null for none (default: `cloneUrl`). */
  readonly origin?: string | null;
  /** Who the sandbox runs as, seen from the host: the files are handed to them. */
  readonly owner?: { uid: number; gid: number };
}

/**
 * Hands a tree to `owner` without following a single symlink out of it (`-P`: no link is
 * traversed, `-h`: a link's own owner changes), in one process rather than a call per file.
 */
async function lchownTree(path: string, uid: number, gid: number): Promise<void> {
  await run('chown', ['-R', '-P', '-h', '--', `${uid}:${gid}`, path], {
    env: { PATH: '/usr/bin:/bin' },
  }).catch((error: unknown) => {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new AppError('PRECONDITION_FAILED', `handing ${path} over failed: ${stderr.trim()}`);
  });
}

/**
 * Fills an empty workdir: a clone of `cloneUrl` (or a fresh repository), the bot identity and the
 * run's branch. The clone is made in a scratch directory only the host can reach, next to the
 * workdir, and moved in once complete: git never runs in a directory a sandbox can write. Local
 * sources are copied (`--no-local`), never hard-linked, so handing the files to the sandbox user
 * cannot change who owns the source's objects.
 */
export async function prepareWorkspace(
  options: PrepareWorkspaceOptions,
): Promise<PreparedWorkspace> {
  const { workdir } = options;
  if ((await readdir(workdir)).length > 0) {
    throw new AppError('CONFLICT', `${workdir} is not empty: a workspace is only prepared once`);
  }
  const scratch = await mkdtemp(join(dirname(workdir), '.seed-'));
  try {
    await chmod(scratch, 0o700);
    const prepared = await fillScratch(scratch, options);
    if (options.owner) await lchownTree(scratch, options.owner.uid, options.owner.gid);
    for (const entry of await readdir(scratch)) {
      await rename(join(scratch, entry), join(workdir, entry));
    }
    return prepared;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

async function fillScratch(
  dir: string,
  options: PrepareWorkspaceOptions,
): Promise<PreparedWorkspace> {
  if (options.cloneUrl) {
    const branchArgs = options.baseBranch ? ['--branch', options.baseBranch] : [];
    await hostGit(dir, [
      'clone',
      '--quiet',
      '--no-local',
      ...branchArgs,
      '--',
      options.cloneUrl,
      '.',
    ]);
  } else {
    await hostGit(dir, ['init', '--quiet', '--initial-branch=main']);
    await hostGit(dir, ['commit', '--quiet', '--allow-empty', '-m', 'Start'], {
      env: BOT_IDENTITY_ENV,
    });
  }
  await hostGit(dir, ['config', 'user.name', BOT_IDENTITY.name]);
  await hostGit(dir, ['config', 'user.email', BOT_IDENTITY.email]);
  const start = await startingCommit(dir, options);
  await hostGit(dir, ['checkout', '--quiet', '-B', options.branch, ...(start ? [start] : [])]);
  if (options.startRef) await hostGit(dir, ['update-ref', '-d', 'refs/caravel/start']);
  await pointOrigin(dir, options);
  const baseCommit = await hostGit(dir, ['rev-parse', 'HEAD']);
  return { branch: options.branch, baseCommit };
}

/** The commit the branch starts at, when it is not the clone's HEAD. */
async function startingCommit(
  dir: string,
  options: PrepareWorkspaceOptions,
): Promise<string | undefined> {
  if (options.startRef) {
    await hostGit(dir, ['fetch', '--quiet', 'origin', `+${options.startRef}:refs/caravel/start`]);
    return hostGit(dir, ['rev-parse', 'refs/caravel/start^{commit}']);
  }
  if (!options.startAt) return undefined;
  await hostGit(dir, ['cat-file', '-e', `${options.startAt}^{commit}`]).catch(() => {
    throw new AppError(
      'NOT_FOUND',
      `commit ${options.startAt} is not in ${options.cloneUrl ?? 'the workspace'}`,
    );
  });
  return options.startAt;
}

async function pointOrigin(dir: string, options: PrepareWorkspaceOptions): Promise<void> {
  if (options.origin === undefined || !options.cloneUrl) return;
  if (options.origin === null) await hostGit(dir, ['remote', 'remove', 'origin']);
  else await hostGit(dir, ['remote', 'set-url', 'origin', options.origin]);
}
