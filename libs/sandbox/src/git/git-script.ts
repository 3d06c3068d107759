import { AppError } from '@caravel/errors';
import { HOOKLESS_GIT_ENV } from '../providers/one-shot.js';
import type { ExecResult, Sandbox } from '../sandbox.types.js';
import { shellQuote } from '../session/request-encoder.js';

export { shellQuote };

/** Options shared by the git helpers. */
export interface GitLocation {
  /** The repository's directory, relative to the workdir or absolute inside it (default: the workdir). */
  readonly repoPath?: string;
  readonly timeoutMs?: number;
}

/**
 * Runs a bash script in the repository inside the sandbox. The script runs in a subshell, so its
 * `cd` and exports (`GIT_INDEX_FILE`) never leak into the agent's persistent session; git in it
 * runs none of the repository's hooks or monitor (see `HOOKLESS_GIT_ENV`).
 */
export async function runGitScript(
  sandbox: Sandbox,
  location: GitLocation,
  script: string,
  what: string,
): Promise<string> {
  const dir = location.repoPath ?? '.';
  const command =
    `( set -euo pipefail; shopt -s inherit_errexit\n` +
    `cd -- ${shellQuote(sandbox.workdir)} && cd -- ${shellQuote(dir)}\n${script}\n)`;
  const result: ExecResult = await sandbox.exec(command, {
    env: HOOKLESS_GIT_ENV,
    ...(location.timeoutMs === undefined ? {} : { timeoutMs: location.timeoutMs }),
  });
  if (result.exitCode !== 0 || result.timedOut) {
    throw new AppError('PRECONDITION_FAILED', `${what} failed: ${result.output.trim()}`, {
      details: { exitCode: result.exitCode, timedOut: result.timedOut, sandboxId: sandbox.id },
    });
  }
  if (result.truncated) {
    throw new AppError('INTERNAL', `${what} printed more output than the sandbox returns`, {
      details: { outputBytes: result.outputBytes, sandboxId: sandbox.id },
    });
  }
  return result.output;
}

/** The bot's git identity. */
export interface BotIdentity {
  readonly name: string;
  readonly email: string;
}

/**
 * Writes the bot's identity into the sandbox's global git configuration. Call it at the start of
 * every run: a reconnected sandbox may have lost or changed its home configuration.
 */
export async function applyBotIdentity(
  sandbox: Sandbox,
  identity: BotIdentity,
  location: GitLocation = {},
): Promise<void> {
  if (!identity.name.trim() || !/^[^\s<>@]+@[^\s<>]+$/.test(identity.email)) {
    throw new AppError('BAD_REQUEST', 'a bot identity needs a name and an email address', {
      details: { name: identity.name, email: identity.email },
    });
  }
  await runGitScript(
    sandbox,
    { ...location, repoPath: '.' },
    `git config --global user.name ${shellQuote(identity.name)}\n` +
      `git config --global user.email ${shellQuote(identity.email)}`,
    'applying the bot identity',
  );
}
