/**
 * The sandbox as the agent's tools see it. The runner adapts the real sandbox (libs/sandbox, over
 * the broker's RPC) to this port; tests use a directory-backed implementation.
 *
 * Paths: a relative path resolves against the sandbox's working directory (the repository root);
 * an absolute path is used as it is. Paths in results (glob, grep) are written the way the
 * request's path was: relative to the working directory under a relative or absent path, absolute
 * under an absolute one, so the model can pass them straight back. Failures the model can fix (a missing file, a path outside
 * the sandbox) are raised as `AppError`s with `NOT_FOUND` / `FORBIDDEN` / `BAD_REQUEST`; a sandbox
 * that cannot be reached raises `DEPENDENCY_UNAVAILABLE`.
 */
export interface ToolSandbox {
  /** Runs a shell command in the sandbox's persistent session; never rejects on a non-zero exit. */
  exec(request: ExecRequest): Promise<ExecResult>;
  /** The whole text of a file (UTF-8). `NOT_FOUND` when absent, `BAD_REQUEST` for a directory. */
  readFile(path: string): Promise<string>;
  /** Creates or overwrites a file, creating missing parent directories. */
  writeFile(path: string, content: string): Promise<WriteOutcome>;
  /**
   * Exact (byte-for-byte, no whitespace or tab normalisation) replacement of `oldText`. The file is
   * written only when the outcome is `replaced`: with `replaceAll` false that requires exactly one
   * occurrence. {@link replaceExact} implements these rules for adapters built on read + write.
   */
  editFile(request: EditRequest): Promise<EditOutcome>;
  /** The direct children of a directory. `NOT_FOUND` when absent. */
  listFiles(path: string): Promise<FileEntry[]>;
  /** Files under `path` (default the working directory) whose path below it matches, sorted. */
  glob(request: GlobRequest): Promise<GlobResult>;
  /** Lines matching a pattern under a path, in path then line order. */
  grep(request: GrepRequest): Promise<GrepResult>;
  /**
   * The working tree's current changes against HEAD as a unified git diff, untracked files
   * included (what `git add -A && git diff --cached HEAD` shows); empty when nothing changed.
   */
  diff(): Promise<string>;
}

/** A shell command to run. */
export interface ExecRequest {
  command: string;
  /** Hard limit; the sandbox stops the command when it passes. */
  timeoutMs: number;
  /** Working directory; the session's current one when omitted. */
  cwd?: string;
}

/** What a command did. `output` is stdout and stderr interleaved as the command wrote them. */
export interface ExecResult {
  /** The exit code, or null when the command did not exit by itself (timed out, killed). */
  exitCode: number | null;
  output: string;
  timedOut: boolean;
  /** True when the sandbox itself cut the output (its own transport cap). */
  truncated: boolean;
}

/** The result of a write. */
export interface WriteOutcome {
  /** True when the file did not exist before. */
  created: boolean;
}

/** An exact replacement in one file. */
export interface EditRequest {
  path: string;
  oldText: string;
  newText: string;
  replaceAll: boolean;
}

/**
 * The outcome of an exact replacement. `lines` are the 1-based lines where each occurrence starts
 * (in the file as it was before the edit).
 */
export type EditOutcome =
  | { status: 'replaced'; occurrences: number; lines: number[] }
  | { status: 'no-match' }
  | { status: 'ambiguous'; occurrences: number; lines: number[] };

/** One entry of a directory listing. */
export interface FileEntry {
  /** The entry's name (no directory part). */
  name: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  /** Size in bytes, for files. */
  size?: number;
}

/** A glob search. Patterns use `*`, `**`, `?` and `{a,b}`. */
export interface GlobRequest {
  pattern: string;
  path?: string;
  /** Stop after this many paths and report `truncated`. */
  maxResults: number;
}

/** Matching paths, sorted. */
export interface GlobResult {
  paths: string[];
  truncated: boolean;
}

/** A content search. */
export interface GrepRequest {
  pattern: string;
  /** True: `pattern` is an extended regular expression (as `grep -E`); false: literal text. */
  regex: boolean;
  ignoreCase: boolean;
  /** File or directory to search; the working directory when omitted. */
  path?: string;
  /** Only files whose path matches this glob (e.g. `*.ts`, `src/**\/*.ts`). */
  include?: string;
  /** Stop after this many matches and report `truncated`. */
  maxMatches: number;
}

/** One matching line. */
export interface GrepMatch {
  path: string;
  /** 1-based line number. */
  line: number;
  text: string;
}

/** Matching lines. Binary files and the `.git` directory are skipped. */
export interface GrepResult {
  matches: GrepMatch[];
  truncated: boolean;
}
