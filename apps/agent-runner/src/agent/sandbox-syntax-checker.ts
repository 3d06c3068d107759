import type { SyntaxChecker } from '@caravel/agent';
import { shellQuote, type Sandbox } from '@caravel/sandbox';

/** `bash -n` is a parse, not a run: it answers at once; this bounds a stuck session. */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Checks a command's bash syntax in the thread's sandbox (`bash -n`, which parses without
 * running), so a command with a syntax error is sent back to the model instead of executed.
 * A sandbox that cannot answer passes the command: the command itself will then fail visibly.
 */
export function sandboxSyntaxChecker(sandbox: Pick<Sandbox, 'exec'>): SyntaxChecker {
  return {
    async check(command) {
      const result = await sandbox
        .exec(`bash -n -c ${shellQuote(command)}`, { timeoutMs: CHECK_TIMEOUT_MS })
        .catch(() => null);
      if (result === null || result.timedOut || result.exitCode === 0) return { ok: true };
      return { ok: false, stdout: '', stderr: result.output.trim() };
    },
  };
}
