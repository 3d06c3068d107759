import { AppError } from '@caravel/errors';
import { execFile } from 'node:child_process';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The bot's identity on every commit a run makes. */
export const BOT_IDENTITY = { name: 'Caravel', email: 'caravel@users.noreply.localhost' } as const;

/** The bot identity as git's environment variables (for commits made on the host). */
export const BOT_IDENTITY_ENV: Readonly<Record<string, string>> = {
  GIT_AUTHOR_NAME: BOT_IDENTITY.name,
  GIT_AUTHOR_EMAIL: BOT_IDENTITY.email,
  GIT_COMMITTER_NAME: BOT_IDENTITY.name,
  GIT_COMMITTER_EMAIL: BOT_IDENTITY.email,
};

/**
 * Options no configuration can turn back on: hooks, the filesystem monitor (a command git runs)
 * and transports that execute programs. Given on the command line, they win over any file.
 */
const HARDENING = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'protocol.ext.allow=never',
  '-c',
  'credential.helper=',
] as const;

export interface HostGitOptions {
  /** Extra environment (GIT_INDEX_FILE, identities); PATH and the config isolation always win. */
  readonly env?: Readonly<Record<string, string>>;
  readonly maxBuffer?: number;
  /** Piped to git's standard input (e.g. a pack for `index-pack --stdin`). */
  readonly stdin?: Readable;
  /**
   * Kills git when aborted (its owner shuts down: a clone may take minutes); it then fails with
   * the signal's reason when that is an error.
   */
  readonly signal?: AbortSignal;
}

/**
 * Runs git on the host, for repositories the host made and owns (a sandbox's mirror, a scratch
 * clone, a person's own repository), never in a directory a sandbox can write: git reads a
 * repository's config and runs its hooks, so a sandbox's `.git` would run the agent's code here.
 * No system or global config is read, hooks and fsmonitor are off, and git's own ownership check
 * (`safe.directory`) stays on, so a repository owned by another user (a sandbox's) is refused.
 */
export async function hostGit(
  cwd: string,
  args: readonly string[],
  options: HostGitOptions = {},
): Promise<string> {
  try {
    const running = run('git', [...HARDENING, ...args], {
      cwd,
      env: {
        ...options.env,
        PATH: '/usr/bin:/bin',
        HOME: '/dev/null',
        XDG_CONFIG_HOME: '/dev/null',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_ATTR_NOSYSTEM: '1',
        GIT_TERMINAL_PROMPT: '0',
      },
      maxBuffer: options.maxBuffer ?? 64 * 1024 * 1024,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    // Git may stop reading early (it refused the input): the broken pipe is its answer, not ours.
    if (options.stdin && running.child.stdin)
      void pipeline(options.stdin, running.child.stdin).catch(() => undefined);
    const { stdout } = await running;
    return stdout.trim();
  } catch (error) {
    const reason: unknown = options.signal?.reason;
    if (options.signal?.aborted && reason instanceof Error) throw reason;
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new AppError('PRECONDITION_FAILED', `git ${verb(args)} failed: ${stderr.trim()}`);
  }
}

/** The git command among `args` (what follows the leading `-c name=value` options). */
function verb(args: readonly string[]): string {
  let index = 0;
  while (args[index] === '-c') index += 2;
  return args[index] ?? '';
}
