import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { sandboxError } from '../sandbox.errors.js';
import type { SessionProcess } from '../session/bash-session.js';
import { CONFINED_FS_SERVER } from './confined-fs-server.js';
import { fsError, type FsEntry, type FsInfo, type WorkdirFs } from './workdir-fs.js';

/** How to start a program inside the sandbox's confinement (the provider knows). */
export interface ConfinedSpawn {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly uid?: number;
  readonly gid?: number;
}

/**
 * Builds the confined start of the file helper: `node` is the host's own binary, to be made
 * visible inside; the returned spawn must run `[node, ...nodeArgs]` in the sandbox.
 */
export type ConfinedSpawner = (node: string, nodeArgs: readonly string[]) => Promise<ConfinedSpawn>;

/** A running file helper: its process (stdio, exit) and how to end it. */
export interface FileHelper {
  readonly process: SessionProcess;
  /** Ends the helper; its process then emits `exit`. */
  end(): void;
}

/**
 * Starts the file helper inside the sandbox: `node` with `nodeArgs` (`FILE_HELPER_NODE_ARGS`),
 * as a local process under the provider's confinement (`spawnedHelper`) or as an exec in the
 * sandbox's container or pod, whose own `node` runs it.
 */
export type FileHelperStarter = (nodeArgs: readonly string[]) => Promise<FileHelper>;

/** What node runs to serve the helper protocol (after the program name). */
export const FILE_HELPER_NODE_ARGS: readonly string[] = [
  '--input-type=module',
  '--no-warnings',
  '-e',
  CONFINED_FS_SERVER,
];

/** The helper as a local process the spawner confines (bwrap), running the host's node. */
export function spawnedHelper(spawner: ConfinedSpawner): FileHelperStarter {
  return async (nodeArgs) => {
    const spec = await spawner(process.execPath, nodeArgs);
    const child = spawn(spec.file, [...spec.args], {
      env: { ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(spec.uid === undefined ? {} : { uid: spec.uid }),
      ...(spec.gid === undefined ? {} : { gid: spec.gid }),
    });
    return {
      process: child,
      end: () => {
        child.stdin.end();
        child.kill('SIGKILL');
      },
    };
  };
}

/** The exit status of a helper whose program was not found (the shell's convention). */
const NOT_FOUND_EXIT = 127;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

interface Answer {
  id: number;
  ok: boolean;
  value?: unknown;
  code?: string;
  message?: string;
}

/**
 * `WorkdirFs` served by a helper process inside the sandbox (see `CONFINED_FS_SERVER`), started
 * on the first call and again after it stops. Requests are answered out of order by id.
 */
export class ConfinedFs implements WorkdirFs {
  private child: FileHelper | undefined;
  private starting: Promise<FileHelper> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** Why the last helper stopped (what a call that raced its exit is told). */
  private lastStop: Error | undefined;

  constructor(private readonly starter: FileHelperStarter) {}

  lstat(path: string): Promise<FsInfo | undefined> {
    return this.call<FsInfo | null>('lstat', { path }).then((info) => info ?? undefined);
  }

  stat(path: string): Promise<FsInfo> {
    return this.call('stat', { path });
  }

  readlink(path: string): Promise<string> {
    return this.call('readlink', { path });
  }

  readdir(path: string): Promise<FsEntry[]> {
    return this.call('readdir', { path });
  }

  async readFile(path: string, maxBytes: number): Promise<Buffer> {
    return Buffer.from(await this.call<string>('readFile', { path, maxBytes }), 'base64');
  }

  async writeFile(path: string, content: Uint8Array): Promise<void> {
    await this.call('writeFile', { path, data: Buffer.from(content).toString('base64') });
  }

  async close(): Promise<void> {
    this.closed = true;
    const helper = this.child ?? (await this.starting?.catch(() => undefined));
    if (!helper || helper.process.exitCode !== null || this.child !== helper) return;
    const exited = new Promise((resolve) => helper.process.once('exit', resolve));
    helper.end();
    await exited;
  }

  private async call<T>(op: string, payload: Record<string, unknown>): Promise<T> {
    if (this.closed) throw sandboxError('session_closed', 'the sandbox was closed');
    const helper = await this.helper();
    // It may have stopped already (an image without node exits at once): no answer would come.
    if (this.child !== helper)
      throw this.lastStop ?? sandboxError('session_dead', "the sandbox's file helper stopped");
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
    helper.process.stdin.write(`${JSON.stringify({ id, op, ...payload })}\n`);
    return answer as Promise<T>;
  }

  private helper(): Promise<FileHelper> {
    if (this.child) return Promise.resolve(this.child);
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<FileHelper> {
    const helper = await this.starter(FILE_HELPER_NODE_ARGS);
    const child = helper.process;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on('line', (line) =>
      this.settle(line),
    );
    // A helper that dies while a request is being written fails that write with EPIPE: unheard,
    // that error would be thrown in the host process. Its exit rejects what was pending instead.
    child.stdin.on('error', () => undefined);
    child.on('exit', (code) => this.stopped(helper, code, stderr));
    child.on('error', () => this.stopped(helper, null, stderr));
    this.child = helper;
    return helper;
  }

  private settle(line: string): void {
    let answer: Answer;
    try {
      answer = JSON.parse(line) as Answer;
    } catch {
      return;
    }
    const pending = this.pending.get(answer.id);
    if (!pending) return;
    this.pending.delete(answer.id);
    if (answer.ok) pending.resolve(answer.value);
    else pending.reject(fsError(answer.code ?? 'EIO', answer.message ?? 'failed'));
  }

  private stopped(helper: FileHelper, code: number | null, stderr: string): void {
    if (this.child === helper) this.child = undefined;
    const said = stderr.trim() ? `: ${stderr.trim().slice(-500)}` : '';
    // A helper whose program is missing (an image without node) fails every operation, clearly:
    // there is no other way to them (never the host's files instead).
    const error =
      code === NOT_FOUND_EXIT && !this.closed
        ? sandboxError('unsupported', `the sandbox's file helper could not start${said}`)
        : sandboxError(
            this.closed ? 'session_closed' : 'session_dead',
            `the sandbox's file helper stopped${said}`,
          );
    this.lastStop = error;
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
