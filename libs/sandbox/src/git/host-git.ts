import { AppError } from '@caravel/errors';
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

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
  /** Most bytes of standard output kept; past it git is killed and the call fails. */
  readonly maxBuffer?: number;
  /** Piped to git's standard input (e.g. a pack for `index-pack --stdin`). */
  readonly stdin?: Readable;
  /**
   * Kills git and every process it started (its process group: `git-remote-https`,
   * `pack-objects`, `index-pack`) when aborted, its owner shutting down (a clone, fetch or push
   * may take minutes); it then fails with the signal's reason when that is an error. SIGTERM, so
   * git removes its lock and temporary files on the way out, as it does on Ctrl-C.
   */
  readonly signal?: AbortSignal;
}

/** What git wrote to its standard error, kept for the error message (its tail). */
const STDERR_KEPT = 64 * 1024;

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
    return (await runGit(cwd, [...HARDENING, ...args], options)).trim();
  } catch (error) {
    const reason: unknown = options.signal?.reason;
    if (options.signal?.aborted && reason instanceof Error) throw reason;
    const stderr = (error as { stderr?: string }).stderr ?? String(error);
    throw new AppError('PRECONDITION_FAILED', `git ${verb(args)} failed: ${stderr.trim()}`);
  }
}

/**
 * git, in a process group of its own when it has a signal, so a stop ends what it started too:
 * killing git alone left `git-remote-https` waiting on the network until the process ended.
 * Resolves with its standard output on exit 0; rejects with `{ stderr }` otherwise.
 */
function runGit(cwd: string, args: readonly string[], options: HostGitOptions): Promise<string> {
  const maxBuffer = options.maxBuffer ?? 64 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) return reject(gitFailure('stopped before it started'));
    // Its own group only when it may be stopped: the others stay in ours (a terminal's Ctrl-C).
    const grouped = options.signal !== undefined;
    const child = spawn('git', args, {
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
      detached: grouped,
      stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let overflowed = false;
    const stop = (): void => end(child, grouped);
    options.signal?.addEventListener('abort', stop, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > maxBuffer) {
        overflowed = true;
        stop();
      } else stdout.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
    });
    // Git may stop reading early (it refused the input): the broken pipe is its answer, not ours.
    if (options.stdin && child.stdin)
      void pipeline(options.stdin, child.stdin).catch(() => undefined);
    child.once('error', (error) => {
      options.signal?.removeEventListener('abort', stop);
      reject(Object.assign(error, { stderr: error.message }));
    });
    child.once('close', (code, signal) => {
      options.signal?.removeEventListener('abort', stop);
      if (code === 0 && !overflowed) return resolve(Buffer.concat(stdout).toString('utf8'));
      const why = overflowed
        ? `its output passed ${maxBuffer} bytes`
        : stderr || (signal ? `killed by ${signal}` : `exit ${code}`);
      reject(gitFailure(why));
    });
  });
}

/** What a failed git rejects with: its standard error (or why it ended) as `stderr`. */
function gitFailure(stderr: string): Error & { stderr: string } {
  return Object.assign(new Error(stderr), { stderr });
}

/** Ends `child`, and everything in its process group when it leads one; gone already is no error. */
function end(child: ChildProcess, grouped: boolean): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (grouped) process.kill(-child.pid, 'SIGTERM');
    else child.kill('SIGTERM');
  } catch {
    // Exited between the check and the kill.
  }
}

/** The git command among `args` (what follows the leading `-c name=value` options). */
function verb(args: readonly string[]): string {
  let index = 0;
  while (args[index] === '-c') index += 2;
  return args[index] ?? '';
}
