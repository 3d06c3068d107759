import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import type { Readable, Writable } from 'node:stream';
import { sandboxError } from '../sandbox.errors.js';
import type { ExecOptions, ExecResult } from '../sandbox.types.js';
import { FrameReader, type DriverFrame, type DriverOutputFrame } from './frame-reader.js';
import { SafeTextStream, shapeOutput, streamStoppedNote } from './output-shaping.js';
import { encodeRequest, newSentinel } from './request-encoder.js';

/**
 * The driver process a session talks to: a spawned child, or a driver attached over another
 * transport (such as a `docker exec` stream). A `ChildProcess` with piped stdio is one.
 */
export interface SessionProcess {
  /** Its pid on the host, when it is a host process. */
  readonly pid?: number | undefined;
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exitCode: number | null;
  readonly signalCode: NodeJS.Signals | null;
  on(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  once(event: 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
}

/** How a session behaves, whatever runs its driver. */
export interface SessionDriverOptions {
  readonly defaultTimeoutMs: number;
  readonly maxTimeoutMs: number;
  readonly outputLimitBytes: number;
  /** Matches the driver's grace between TERM and KILL of a timed-out command. */
  readonly killGraceMs: number;
  readonly startTimeoutMs: number;
  /** Host-side slack past timeout + grace before an unanswered session is declared dead. */
  readonly watchdogSlackMs: number;
}

/** How to spawn a session's driver process and how it behaves. */
export interface BashSessionOptions extends SessionDriverOptions {
  /** Executable to spawn: `bash` itself, or a wrapper such as `bwrap` that ends in bash. */
  readonly file: string;
  readonly args: readonly string[];
  /** The complete environment of the spawned process (never the host's). */
  readonly env: Readonly<Record<string, string>>;
  readonly uid?: number;
  readonly gid?: number;
}

interface Pending {
  readonly sentinel: string;
  readonly startedAt: number;
  readonly resolve: (result: ExecResult) => void;
  readonly reject: (error: unknown) => void;
  readonly watchdog: NodeJS.Timeout;
  readonly stream: OutputStream | undefined;
}

/** A streaming command's listener and what it was sent so far. */
interface OutputStream {
  readonly listener: (text: string) => void;
  readonly text: SafeTextStream;
  readonly limitBytes: number;
  streamedBytes: number;
}

const STDERR_TAIL_BYTES = 4096;

/**
 * A persistent bash session over a driver process (see driver-script.ts). Commands run one at a
 * time in arrival order; cwd, exported variables and functions carry over between them. A fatal
 * problem (driver exit, protocol error, unanswered command) marks the session dead for good.
 */
export class BashSession {
  private readonly reader: FrameReader;
  private queue: Promise<unknown> = Promise.resolve();
  private pending: Pending | undefined;
  private deadReason: string | undefined;
  private closing = false;
  private stderrTail = '';
  private greetedBy: number | undefined;

  private constructor(
    private readonly child: SessionProcess,
    private readonly terminate: () => void,
    private readonly options: SessionDriverOptions & { readonly file?: string },
  ) {
    this.reader = new FrameReader(options.outputLimitBytes + 64 * 1024);
  }

  /** Spawns the driver and waits for its greeting. */
  static async start(options: BashSessionOptions): Promise<BashSession> {
    const child = spawn(options.file, [...options.args], {
      env: { ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      ...(options.uid === undefined ? {} : { uid: options.uid }),
      ...(options.gid === undefined ? {} : { gid: options.gid }),
    });
    const killGroup = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone: nothing to kill.
      }
    };
    const session = new BashSession(child, killGroup, options);
    await session.awaitGreeting();
    return session;
  }

  /**
   * Attaches to a driver started some other way (see `driverArguments`) and waits for its
   * greeting. `terminate` must end the driver at once; it is called when the session dies.
   */
  static async attach(
    driver: SessionProcess,
    terminate: () => void,
    options: SessionDriverOptions,
  ): Promise<BashSession> {
    const session = new BashSession(driver, terminate, options);
    await session.awaitGreeting();
    return session;
  }

  /** The session process's pid on the host (bubblewrap, for a bwrap session), if it has one. */
  get hostPid(): number | undefined {
    return this.child.pid;
  }

  /** The driver's pid as it sees itself (inside the sandbox's pid namespace), from its greeting. */
  get driverPid(): number | undefined {
    return this.greetedBy;
  }

  /** False once closed or dead. */
  get alive(): boolean {
    return this.deadReason === undefined && !this.closing;
  }

  /** Queues a command; resolves with its result once every earlier command has finished. */
  run(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0 || timeoutMs > this.options.maxTimeoutMs) {
      return Promise.reject(
        sandboxError(
          'invalid_input',
          `timeoutMs must be in (0, ${this.options.maxTimeoutMs}], got ${timeoutMs}`,
        ),
      );
    }
    const streamLimitBytes = options.onOutput ? this.options.outputLimitBytes : 0;
    const request = encodeRequestOrError(command, options.env ?? {}, timeoutMs, {
      ...this.options,
      streamLimitBytes,
    });
    if (request instanceof Error) return Promise.reject(request);
    const stream: OutputStream | undefined = options.onOutput && {
      listener: options.onOutput,
      text: new SafeTextStream(),
      limitBytes: streamLimitBytes,
      streamedBytes: 0,
    };
    const result = this.queue.then(() =>
      this.send(request.sentinel, request.bytes, timeoutMs, stream),
    );
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** Calls `listener` once the session process has exited (for host-side cleanup). */
  onExit(listener: () => Promise<unknown> | void): void {
    this.child.once('exit', () => {
      void Promise.resolve()
        .then(listener)
        .catch(() => undefined);
    });
  }

  /** Ends the driver (and, under bubblewrap, everything in the sandbox with it). */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const exited = new Promise<void>((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) resolve();
      else this.child.once('exit', () => resolve());
    });
    this.child.stdin.end();
    const timer = setTimeout(() => this.kill(), this.pending ? 0 : 1000);
    await exited;
    clearTimeout(timer);
    this.fail(sandboxError('session_closed', 'the sandbox session was closed'));
  }

  private send(
    sentinel: string,
    bytes: Buffer,
    timeoutMs: number,
    stream: OutputStream | undefined,
  ): Promise<ExecResult> {
    if (!this.alive) return Promise.reject(this.unavailableError());
    return new Promise<ExecResult>((resolve, reject) => {
      const budget = timeoutMs + this.options.killGraceMs + this.options.watchdogSlackMs;
      const watchdog = setTimeout(
        () => this.die(`no answer ${budget} ms after a command with a ${timeoutMs} ms timeout`),
        budget,
      );
      const startedAt = performance.now();
      this.pending = { sentinel, startedAt, resolve, reject, watchdog, stream };
      this.child.stdin.write(bytes);
    });
  }

  private onFrame(frame: DriverFrame | DriverOutputFrame): void {
    const pending = this.pending;
    if (!pending || pending.sentinel !== frame.sentinel) {
      this.die(`unexpected frame ${frame.sentinel}`);
      return;
    }
    if (frame.kind === 'output') {
      if (!pending.stream) this.die(`unrequested output frame ${frame.sentinel}`);
      else emit(pending.stream, pending.stream.text.push(frame.bytes), frame.bytes.length);
      return;
    }
    clearTimeout(pending.watchdog);
    this.pending = undefined;
    if (pending.stream) endStream(pending.stream, frame.totalBytes);
    const { output, truncated } = shapeOutput(frame.head, frame.tail, frame.totalBytes);
    pending.resolve({
      exitCode: frame.exitCode,
      output,
      timedOut: frame.timedOut,
      truncated,
      outputBytes: frame.totalBytes,
      elapsedMs: performance.now() - pending.startedAt,
    });
  }

  private awaitGreeting(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.die(`no greeting within ${this.options.startTimeoutMs} ms`);
        settle(this.unavailableError('provider_unavailable'));
      }, this.options.startTimeoutMs);
      const settle = (error?: Error): void => {
        clearTimeout(timer);
        if (error) reject(error);
        else resolve();
      };
      this.wire(settle);
    });
  }

  private wire(onStart: (error?: Error) => void): void {
    let started = false;
    this.child.stdout.on('data', (chunk: Buffer) => {
      try {
        const { readyPid, frames } = this.reader.push(chunk);
        if (readyPid !== undefined && !started) {
          started = true;
          this.greetedBy = readyPid;
          onStart();
        }
        for (const frame of frames) this.onFrame(frame);
      } catch (error) {
        this.die(error instanceof Error ? error.message : String(error));
      }
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
    });
    this.child.stdin.on('error', () => undefined);
    this.child.on('error', (error) => {
      this.die(`cannot start ${this.options.file ?? 'the session driver'}: ${error.message}`);
      if (!started) onStart(this.unavailableError('provider_unavailable'));
    });
    this.child.on('exit', (code, signal) => {
      this.die(`session process exited (code ${code ?? 'none'}, signal ${signal ?? 'none'})`);
      if (!started) onStart(this.unavailableError('provider_unavailable'));
    });
  }

  private die(reason: string): void {
    if (this.deadReason !== undefined) return;
    this.deadReason = this.closing ? 'closed' : reason;
    this.kill();
    this.fail(this.unavailableError());
  }

  private fail(error: unknown): void {
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(pending.watchdog);
    this.pending = undefined;
    pending.reject(error);
  }

  private kill(): void {
    if (this.child.exitCode !== null) return;
    this.terminate();
  }

  private unavailableError(reason: 'session_dead' | 'provider_unavailable' = 'session_dead') {
    if (this.closing && this.deadReason === 'closed') {
      return sandboxError('session_closed', 'the sandbox session was closed');
    }
    const stderr = this.stderrTail.trim();
    const said = stderr ? `; it said: ${stderr.slice(-500)}` : '';
    return sandboxError(reason, `sandbox session is dead: ${this.deadReason ?? 'unknown'}${said}`, {
      stderr,
    });
  }
}

/** Hands streamed text to the listener; a throwing listener never disturbs the session. */
function emit(stream: OutputStream, text: string, bytes = 0): void {
  stream.streamedBytes += bytes;
  if (text === '') return;
  try {
    stream.listener(text);
  } catch {
    // Progress display only: the command and its result are unaffected.
  }
}

/** Flushes what the stream held back, and says so when the output outgrew the streaming limit. */
function endStream(stream: OutputStream, totalBytes: number): void {
  emit(stream, stream.text.end());
  if (stream.streamedBytes >= stream.limitBytes && totalBytes > stream.streamedBytes) {
    emit(stream, streamStoppedNote(stream.streamedBytes));
  }
}

function encodeRequestOrError(
  command: string,
  env: Readonly<Record<string, string>>,
  timeoutMs: number,
  options: SessionDriverOptions & { readonly streamLimitBytes: number },
): { sentinel: string; bytes: Buffer } | Error {
  const sentinel = newSentinel();
  try {
    const bytes = encodeRequest({
      sentinel,
      command,
      env,
      timeoutMs,
      outputLimitBytes: options.outputLimitBytes,
      streamLimitBytes: options.streamLimitBytes,
    });
    return { sentinel, bytes };
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}
