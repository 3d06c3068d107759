import { AppError } from '@caravel/errors';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { BOT_IDENTITY } from '../git/host-git.js';

const execFileAsync = promisify(execFile);

/** Where reclaimed sandboxes' work is kept, under the snapshot's repository. */
export const RECLAIMED_REF_PREFIX = 'refs/caravel/reclaimed/';

/** What a workdir holds that exists nowhere else. */
export interface UnsavedWork {
  /** Uncommitted changes, untracked files included (ignored ones are not work). */
  readonly dirty: boolean;
  /** Commits on HEAD that no remote-tracking ref has (all of them when there is no remote). */
  readonly unpushedCommits: number;
}

/** A git bundle that holds a workdir's work, worktree included. */
export interface WorkSnapshot {
  readonly path: string;
  /** The commit recording the worktree (parent: HEAD), under `refs/caravel/reclaimed/`. */
  readonly commit: string;
}

async function git(workdir: string, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout } = await execFileAsync('git', ['-c', 'safe.directory=*', ...args], {
      cwd: workdir,
      env: { PATH: '/usr/bin:/bin', HOME: workdir, GIT_TERMINAL_PROMPT: '0', ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new AppError('PRECONDITION_FAILED', `git ${args[0] ?? ''} in ${workdir}: ${stderr}`);
  }
}

async function headCommit(workdir: string): Promise<string | null> {
  return git(workdir, ['rev-parse', '-q', '--verify', 'HEAD^{commit}']).catch(() => null);
}

/**
 * What in a workdir (a git repository, checked on the host) would be lost if it were deleted.
 * A workdir that is not a repository fails with PRECONDITION_FAILED: it cannot be judged, so it
 * must not be deleted.
 */
export async function unsavedWork(workdir: string): Promise<UnsavedWork> {
  await git(workdir, ['rev-parse', '--git-dir']);
  const dirty = (await git(workdir, ['status', '--porcelain', '--untracked-files=all'])) !== '';
  const head = await headCommit(workdir);
  const unpushedCommits = head
    ? Number(await git(workdir, ['rev-list', '--count', 'HEAD', '--not', '--remotes']))
    : 0;
  return { dirty, unpushedCommits };
}

/**
 * Saves the workdir's work to a git bundle at `destination` (outside the sandbox, so it survives
 * the sandbox's deletion): every branch, plus a commit of the worktree as it is (tracked and
 * untracked files, built in a scratch index so the real one is untouched). Null when there is
 * nothing unsaved. Restore with `git clone <bundle>` or `git fetch <bundle> 'refs/*:refs/*'`.
 */
export async function snapshotWork(
  workdir: string,
  destination: string,
  label: string,
): Promise<WorkSnapshot | null> {
  const work = await unsavedWork(workdir);
  if (!work.dirty && work.unpushedCommits === 0) return null;
  const scratch = await mkdtemp(join(tmpdir(), 'caravel-snapshot-'));
  try {
    const env = { GIT_INDEX_FILE: join(scratch, 'index') };
    const head = await headCommit(workdir);
    if (head) await git(workdir, ['read-tree', head], env);
    await git(workdir, ['add', '-A'], env);
    const tree = await git(workdir, ['write-tree'], env);
    const identity = {
      GIT_AUTHOR_NAME: BOT_IDENTITY.name,
      GIT_AUTHOR_EMAIL: BOT_IDENTITY.email,
      GIT_COMMITTER_NAME: BOT_IDENTITY.name,
      GIT_COMMITTER_EMAIL: BOT_IDENTITY.email,
    };
    const parent = head ? ['-p', head] : [];
    const message = `caravel: worktree of ${label} when it was reclaimed`;
    const commit = await git(workdir, ['commit-tree', tree, ...parent, '-m', message], identity);
    await git(workdir, ['update-ref', `${RECLAIMED_REF_PREFIX}${label}`, commit]);
    await mkdir(dirname(destination), { recursive: true });
    await git(workdir, ['bundle', 'create', '--quiet', destination, '--all']);
    await git(workdir, ['bundle', 'verify', '--quiet', destination]);
    return { path: destination, commit };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
