import { AppError } from '@caravel/errors';
import { shellQuote, type Sandbox } from '@caravel/sandbox';
import type { ReviewGit } from './review-git.js';

/** Where a command's exact output is left for `readFile` (inside `.git`: never part of a diff). */
const OUTPUT = '.git/caravel-review.out';
const GIT_TIMEOUT_MS = 300_000;

/**
 * {@link ReviewGit} in the review sandbox. A command's standard output goes to a file read back
 * through the sandbox's file operation: `exec` output is shaped for a model (control characters
 * escaped, CRLF folded, elided past a limit), which would corrupt a diff.
 */
export function sandboxGit(sandbox: Pick<Sandbox, 'exec' | 'readFile'>): ReviewGit {
  const command = (args: readonly string[]) =>
    ['git', '-c', 'core.quotePath=true', ...args].map(shellQuote).join(' ');
  return {
    async run(args) {
      const result = await sandbox.exec(`${command(args)} > ${OUTPUT}`, {
        timeoutMs: GIT_TIMEOUT_MS,
      });
      if (result.exitCode !== 0) {
        throw new AppError(
          'PRECONDITION_FAILED',
          `git ${args[0] ?? ''} failed in the review sandbox (exit ${result.exitCode}): ${result.output.trim()}`,
          { retryable: false, details: { args: [...args] } },
        );
      }
      return sandbox.readFile(OUTPUT);
    },
    async succeeds(args) {
      const result = await sandbox.exec(`${command(args)} > /dev/null 2>&1`, {
        timeoutMs: GIT_TIMEOUT_MS,
      });
      return result.exitCode === 0;
    },
  };
}
