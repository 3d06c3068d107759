/** The providers this library ships (`remote`: any service behind `RemoteSandboxProvider`). */
export type SandboxProviderName = 'local' | 'bwrap' | 'docker' | 'kubernetes' | 'remote';

/**
 * Resource limits of one sandbox (where the provider can enforce them; see docs/sandbox.md for
 * which mechanism holds each one under each provider).
 */
export interface SandboxLimits {
  /**
   * Processes and threads of the whole sandbox (cgroup `pids.max`; `ulimit -u` as a backstop, or
   * alone without cgroups); contains fork bombs.
   */
  readonly maxProcesses: number;
  /**
   * Memory of the whole sandbox in bytes, its `/tmp` included (cgroup memory limit, no swap);
   * without cgroups, the address space of each process (`ulimit -v`).
   */
  readonly maxMemoryBytes: number;
  /** The sandbox's CPU share, in CPUs (1.5 = one and a half cores' time; a cgroup CPU quota). */
  readonly maxCpus: number;
  /** Maximum size of any file a command writes, in bytes (`ulimit -f`). */
  readonly maxFileBytes: number;
  /** Maximum open file descriptors per process (`ulimit -n`). */
  readonly maxOpenFiles: number;
  /**
   * Disk the workspace and the sandbox's home may use together, in bytes (both live on the
   * host's disk; a watchdog stops what writes past it).
   */
  readonly maxWorkspaceBytes: number;
  /** Size of the sandbox's `/tmp`, in bytes (a size-capped tmpfs, counted in its memory). */
  readonly maxTmpBytes: number;
}

/** What to create. Everything is optional; providers fill in safe defaults. */
export interface SandboxSpec {
  /** A caller-chosen id (e.g. derived from the thread id); random when absent. */
  readonly id?: string;
  /** Extra environment for every command; names must be shell identifiers. Never put secrets here. */
  readonly env?: Readonly<Record<string, string>>;
  /** Overrides of the provider's default limits. */
  readonly limits?: Partial<SandboxLimits>;
  /** Default per-command timeout in milliseconds. */
  readonly defaultTimeoutMs?: number;
  /** Output beyond this many bytes is elided from the middle of a command's output. */
  readonly outputLimitBytes?: number;
}

/** Per-command options. */
export interface ExecOptions {
  /** Kill the command (its whole process group) after this many milliseconds. */
  readonly timeoutMs?: number;
  /** Environment for this command only; the session's values are restored afterwards. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Receives the command's output while it runs, in order, as safe text (see `safeText`), up to
   * the sandbox's output limit (then one note says streaming stopped). For progress only: the
   * result's `output` is what counts. Providers that cannot stream (`remote`) never call it.
   */
  readonly onOutput?: (text: string) => void;
}

/** What one command did. */
export interface ExecResult {
  /** The command's exit status; a command killed by a signal reports 128 + signal. */
  readonly exitCode: number;
  /** Merged stdout and stderr, made safe to show (see `safeText`), elided past the limit. */
  readonly output: string;
  /** The command ran past its timeout and was killed; the session is still usable. */
  readonly timedOut: boolean;
  /** Part of the output was dropped (the output names how many bytes). */
  readonly truncated: boolean;
  /** Bytes the command wrote in total, before any elision. */
  readonly outputBytes: number;
  /** Wall time of the round trip as seen by the caller. */
  readonly elapsedMs: number;
}

/** One entry of `listFiles`. */
export interface FileEntry {
  /** Path relative to the workdir, with `/` separators. */
  readonly path: string;
  readonly type: 'file' | 'directory' | 'symlink' | 'other';
  readonly size: number;
}

export interface ListFilesOptions {
  readonly recursive?: boolean;
  /** Stop after this many entries (default 1000); `listFiles` then reports `truncated`. */
  readonly maxEntries?: number;
}

export interface ListFilesResult {
  readonly entries: readonly FileEntry[];
  readonly truncated: boolean;
}

export interface GrepOptions {
  /** Treat the pattern as a JavaScript regular expression (default: a literal string). */
  readonly regex?: boolean;
  readonly ignoreCase?: boolean;
  /** Directory or file to search, relative to the workdir (default: the workdir). */
  readonly path?: string;
  /** Only files whose workdir-relative path matches this glob. */
  readonly include?: string;
  /** Stop after this many matches (default 200). */
  readonly maxMatches?: number;
}

export interface GrepMatch {
  readonly path: string;
  /** 1-based line number. */
  readonly line: number;
  readonly text: string;
}

export interface GrepResult {
  readonly matches: readonly GrepMatch[];
  readonly truncated: boolean;
}

export interface EditFileOptions {
  /** Replace every occurrence instead of requiring exactly one. */
  readonly replaceAll?: boolean;
}

/**
 * A live sandbox: one persistent bash session plus file operations confined to its workdir.
 * Paths given to the file operations are relative to `workdir`, or absolute under it.
 */
export interface Sandbox {
  readonly id: string;
  readonly provider: SandboxProviderName;
  /** The workdir as commands inside the sandbox see it (the session starts there). */
  readonly workdir: string;
  /** True when the session answers a trivial command; false once it is closed or dead. */
  ping(): Promise<boolean>;
  /** Runs a command in the persistent session; calls on one sandbox run one at a time. */
  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: string | Uint8Array): Promise<void>;
  /** Replaces `oldText` by `newText`; fails when `oldText` is absent, or ambiguous without `replaceAll`. */
  editFile(
    path: string,
    oldText: string,
    newText: string,
    options?: EditFileOptions,
  ): Promise<{ replacements: number }>;
  listFiles(path?: string, options?: ListFilesOptions): Promise<ListFilesResult>;
  /** Workdir-relative paths of files matching the pattern (`*`, `?`, `**`, `[...]`, `{a,b}`). */
  glob(pattern: string, options?: { maxResults?: number }): Promise<string[]>;
  grep(pattern: string, options?: GrepOptions): Promise<GrepResult>;
  /** Ends the session; the workdir (the sandbox's work) is kept until the provider deletes it. */
  close(): Promise<void>;
}

/**
 * Creates, reattaches to and deletes sandboxes of one kind. The broker keeps the lifecycle rules
 * (reuse, reconnect, never silently replace); a provider only does what it is told.
 */
export interface SandboxProvider {
  readonly name: SandboxProviderName;
  /** Creates a new sandbox; fails with CONFLICT when the id already exists. */
  create(spec?: SandboxSpec): Promise<Sandbox>;
  /** Opens a new session on an existing sandbox's workdir; NOT_FOUND when it does not exist. */
  connect(id: string): Promise<Sandbox>;
  /** Closes any open session and removes the sandbox and its workdir; NOT_FOUND when unknown. */
  delete(id: string): Promise<void>;
}

/** Something that can warn; providers log through it (no console in library code paths). */
export interface SandboxLogger {
  warn(message: string, context?: Record<string, unknown>): void;
  /** Facts worth a line at start (which mechanism holds the limits); `warn` when absent. */
  info?(message: string, context?: Record<string, unknown>): void;
}
