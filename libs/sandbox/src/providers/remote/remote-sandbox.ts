import { performance } from 'node:perf_hooks';
import { sandboxError } from '../../sandbox.errors.js';
import type * as Port from '../../sandbox.types.js';

/** An exec result as a service reports it; the caller measures `elapsedMs` itself. */
export type RemoteExecResult = Omit<Port.ExecResult, 'elapsedMs'>;

/**
 * One open session on a remote sandbox, as a concrete API provides it: a persistent shell for
 * `exec` plus the sandbox's file operations. Implementations only translate calls to requests;
 * queueing, timeouts and the closed state are `RemoteSandbox`'s.
 */
export interface RemoteSession {
  readonly sandboxId: string;
  /** The workdir as commands in the remote sandbox see it. */
  readonly workdir: string;
  /** The sandbox's default per-command timeout, used when an exec names none. */
  readonly defaultTimeoutMs: number;
  /** Runs a command; `requestTimeoutMs` bounds the whole HTTP round trip. */
  exec(
    command: string,
    options: Port.ExecOptions,
    requestTimeoutMs: number,
  ): Promise<RemoteExecResult>;
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: string | Uint8Array): Promise<void>;
  editFile(
    path: string,
    oldText: string,
    newText: string,
    options: Port.EditFileOptions,
  ): Promise<{ replacements: number }>;
  listFiles(
    path: string | undefined,
    options: Port.ListFilesOptions,
  ): Promise<Port.ListFilesResult>;
  glob(pattern: string, options: { maxResults?: number }): Promise<string[]>;
  grep(pattern: string, options: Port.GrepOptions): Promise<Port.GrepResult>;
  /** Ends the session on the service; the sandbox stays. */
  close(): Promise<void>;
}

const PING_TIMEOUT_MS = 10_000;

/**
 * A `Sandbox` over a remote session. Execs are queued here and sent one at a time in call order
 * (the service serializes too, but HTTP requests on separate connections may arrive in any
 * order). Each exec's HTTP time limit is its command timeout plus `execSlackMs`, so a command
 * that the service times out still gets its answer.
 */
export class RemoteSandbox implements Port.Sandbox {
  readonly provider = 'remote' as const;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly session: RemoteSession,
    private readonly execSlackMs: number,
    private readonly onClose: (sandbox: RemoteSandbox) => void,
  ) {}

  get id(): string {
    return this.session.sandboxId;
  }

  get workdir(): string {
    return this.session.workdir;
  }

  async ping(): Promise<boolean> {
    if (this.closed) return false;
    try {
      const result = await this.exec('true', { timeoutMs: PING_TIMEOUT_MS });
      return result.exitCode === 0;
    } catch {
      return false;
    }
  }

  exec(command: string, options: Port.ExecOptions = {}): Promise<Port.ExecResult> {
    const timeoutMs = options.timeoutMs ?? this.session.defaultTimeoutMs;
    const result = this.queue.then(async () => {
      this.assertOpen();
      const startedAt = performance.now();
      const answer = await this.session.exec(command, options, timeoutMs + this.execSlackMs);
      return { ...answer, elapsedMs: performance.now() - startedAt };
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  readFile(path: string): Promise<string> {
    return this.whenOpen(() => this.session.readFile(path));
  }

  writeFile(path: string, content: string | Uint8Array): Promise<void> {
    return this.whenOpen(() => this.session.writeFile(path, content));
  }

  editFile(
    path: string,
    oldText: string,
    newText: string,
    options: Port.EditFileOptions = {},
  ): Promise<{ replacements: number }> {
    return this.whenOpen(() => this.session.editFile(path, oldText, newText, options));
  }

  listFiles(path?: string, options: Port.ListFilesOptions = {}): Promise<Port.ListFilesResult> {
    return this.whenOpen(() => this.session.listFiles(path, options));
  }

  glob(pattern: string, options: { maxResults?: number } = {}): Promise<string[]> {
    return this.whenOpen(() => this.session.glob(pattern, options));
  }

  grep(pattern: string, options: Port.GrepOptions = {}): Promise<Port.GrepResult> {
    return this.whenOpen(() => this.session.grep(pattern, options));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.markClosed();
    // The service may already be gone; the session is closed for this side either way.
    await this.session.close().catch(() => undefined);
  }

  /** Closed for this side without a call to the service (its sandbox was deleted). */
  markClosed(): void {
    this.closed = true;
    this.onClose(this);
  }

  private async whenOpen<T>(call: () => Promise<T>): Promise<T> {
    this.assertOpen();
    return call();
  }

  private assertOpen(): void {
    if (this.closed) throw sandboxError('session_closed', 'the sandbox session was closed');
  }
}
