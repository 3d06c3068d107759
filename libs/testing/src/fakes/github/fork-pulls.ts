import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/**
 * Fetches `branch` of a fork (a repository on disk) into `refs/pull/<number>/head` of the base
 * repository `<root>/<fullName>.git`, as GitHub keeps every pull request's head in its base
 * (a fork's too, and after the fork is deleted); returns the head commit.
 */
export function exposePullHead(
  root: string,
  fullName: string,
  number: number,
  fork: { path: string; branch: string },
): string {
  const base = join(root, `${fullName}.git`);
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'safe.directory=*', ...args], {
      cwd: base,
      encoding: 'utf8',
    }).trim();
  const ref = `refs/pull/${number}/head`;
  git('fetch', '--quiet', '--no-tags', fork.path, `+refs/heads/${fork.branch}:${ref}`);
  return git('rev-parse', ref);
}

/**
 * The commit `branch` of `<root>/<fullName>.git` points at, or null when it has no such branch:
 * what GitHub reports as the head of a pull request from that branch after a push to it.
 */
export function branchHead(root: string, fullName: string, branch: string): string | null {
  try {
    return execFileSync(
      'git',
      ['-c', 'safe.directory=*', 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`],
      { cwd: join(root, `${fullName}.git`), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] },
    ).trim();
  } catch {
    return null;
  }
}
