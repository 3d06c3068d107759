import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { FakeResponse } from '../http/loopback-api.js';

/** How `head` relates to `base`, as GitHub's compare endpoint says it. */
type CompareStatus = 'identical' | 'ahead' | 'behind' | 'diverged';

/**
 * `GET /repos/{o}/{r}/compare/{base}...{head}` over `<root>/<fullName>.git`: the status and the
 * commit counts each way (`ahead_by`: `head`'s commits `base` lacks), or GitHub's 404 when either
 * side is not a commit of the repository.
 */
export function compareCommits(root: string, fullName: string, basehead: string): FakeResponse {
  const [base, head] = decodeURIComponent(basehead).split('...');
  const git = (...args: string[]): string | null => {
    try {
      return execFileSync('git', ['-c', 'safe.directory=*', ...args], {
        cwd: join(root, `${fullName}.git`),
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim();
    } catch {
      return null;
    }
  };
  const commit = (ref: string | undefined) =>
    ref ? git('rev-parse', '--verify', '--quiet', `${ref}^{commit}`) : null;
  const [from, to] = [commit(base), commit(head)];
  if (!from || !to) return { status: 404, body: { message: 'Not Found' } };
  const aheadBy = Number(git('rev-list', '--count', `${from}..${to}`));
  const behindBy = Number(git('rev-list', '--count', `${to}..${from}`));
  const status: CompareStatus =
    aheadBy === 0 && behindBy === 0
      ? 'identical'
      : behindBy === 0
        ? 'ahead'
        : aheadBy === 0
          ? 'behind'
          : 'diverged';
  return {
    status: 200,
    body: { status, ahead_by: aheadBy, behind_by: behindBy, total_commits: aheadBy, commits: [] },
  };
}
