import { execFile } from 'node:child_process';
import { swegenError } from '../errors/swegen-errors.js';

/**
 * Settings that make `git diff` output independent of the user's and system's configuration:
 * no colour, no external diff or textconv, rename detection on, default `a/` `b/` prefixes,
 * unquoted paths. Combined with an environment that reads no global or system config.
 */
const PINNED_CONFIG = [
  'core.quotepath=false',
  'diff.renames=true',
  'color.ui=false',
  'diff.noprefix=false',
  'diff.mnemonicPrefix=false',
  'diff.relative=false',
  'safe.directory=*',
] as const;

const GIT_ENV = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_LITERAL_PATHSPECS: '1',
  LC_ALL: 'C',
} as const;

/** Extra settings of a {@link GitRunner}. */
export interface GitRunnerOptions {
  /**
   * Arguments put before every command but never shown in an error message (per-invocation
   * `-c http.extraheader=...` credentials, a committer identity).
   */
  readonly hiddenArgs?: readonly string[];
  /** Kills a running git command (a per-PR deadline); the command then fails. */
  readonly signal?: AbortSignal;
}

/** Git on the host over one repository, with pinned output settings and byte-exact results. */
export class GitRunner {
  constructor(
    readonly repoPath: string,
    private readonly gitPath = 'git',
    private readonly options: GitRunnerOptions = {},
  ) {}

  /** Runs git and returns stdout as bytes (diffs and blobs stay byte-exact). */
  bytes(args: readonly string[]): Promise<Buffer> {
    const full = PINNED_CONFIG.flatMap((c) => ['-c', c]).concat(
      this.options.hiddenArgs ?? [],
      args,
    );
    return new Promise((resolve, reject) => {
      execFile(
        this.gitPath,
        full,
        {
          cwd: this.repoPath,
          env: GIT_ENV,
          encoding: 'buffer',
          maxBuffer: 1024 * 1024 * 1024,
          ...(this.options.signal ? { signal: this.options.signal } : {}),
        },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout);
          const detail = stderr.toString('utf8').trim() || error.message;
          reject(swegenError('git_failed', `git ${args.join(' ')} failed: ${detail}`));
        },
      );
    });
  }

  /** Runs git and returns stdout as text without its trailing newline. */
  async text(args: readonly string[]): Promise<string> {
    return (await this.bytes(args)).toString('utf8').replace(/\n$/, '');
  }

  /** True when git exits 0. */
  async succeeds(args: readonly string[]): Promise<boolean> {
    return this.bytes(args).then(
      () => true,
      () => false,
    );
  }
}

/** Splits NUL-terminated git output (`-z`) into paths. */
export function splitNul(output: Buffer): string[] {
  return output
    .toString('utf8')
    .split('\0')
    .filter((part) => part !== '');
}
