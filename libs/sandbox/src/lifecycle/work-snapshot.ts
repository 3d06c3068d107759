import { AppError } from '@caravel/errors';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { hostGit } from '../git/host-git.js';
import { bundleUnsavedWork } from '../git/sandbox-export.js';
import type { OneShotRunner } from '../providers/one-shot.js';

/** Where reclaimed sandboxes' work is kept, under the snapshot's repository. */
export const RECLAIMED_REF_PREFIX = 'refs/caravel/reclaimed/';

/** A git bundle that holds a workdir's work, worktree included. */
export interface WorkSnapshot {
  readonly path: string;
  /** The commit recording the worktree (parent: HEAD), under `refs/caravel/reclaimed/`. */
  readonly commit: string;
}

/**
 * Saves a sandbox's unsaved work to a git bundle at `destination` (outside the sandbox, so it
 * survives the sandbox's deletion): every branch, plus a commit of the worktree as it is. The
 * bundle is made by git inside the sandbox (see `bundleUnsavedWork`); the host only checks that
 * it is a bundle holding the reported commit. Null when there is nothing unsaved. Restore with
 * `git clone <bundle>` or `git fetch <bundle> 'refs/*:refs/*'`.
 */
export async function snapshotWork(
  runner: OneShotRunner,
  sandboxId: string,
  destination: string,
  label: string,
): Promise<WorkSnapshot | null> {
  await mkdir(dirname(destination), { recursive: true });
  const partial = `${destination}.${randomBytes(6).toString('hex')}.partial`;
  try {
    const saved = await bundleUnsavedWork(runner, sandboxId, label, partial);
    if (!saved) return null;
    const heads = await hostGit('/', ['bundle', 'list-heads', partial]);
    if (!heads.split('\n').includes(`${saved.commit} ${RECLAIMED_REF_PREFIX}${label}`)) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `the bundle of ${label} does not hold its worktree commit ${saved.commit}`,
      );
    }
    await rename(partial, destination);
    return { path: destination, commit: saved.commit };
  } finally {
    await rm(partial, { force: true });
  }
}
