import { AppError } from '@caravel/errors';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ReviewGit } from '../preparation/review-git.js';

const run = promisify(execFile);

/** {@link ReviewGit} on a local repository, for tests that build one with real git. */
export function hostReviewGit(cwd: string): ReviewGit {
  const git = (args: readonly string[]) =>
    run('git', ['-c', 'core.quotePath=true', ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  return {
    async run(args) {
      try {
        return (await git(args)).stdout;
      } catch (error) {
        const stderr = (error as { stderr?: string }).stderr ?? String(error);
        throw new AppError('PRECONDITION_FAILED', `git ${args.join(' ')}: ${stderr.trim()}`);
      }
    },
    succeeds: (args) =>
      git(args).then(
        () => true,
        () => false,
      ),
  };
}
