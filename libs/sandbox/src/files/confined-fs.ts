import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { sandboxError } from '../sandbox.errors.js';
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
  private child: ChildProcessWithoutNullStreams | undefined;
  private starting: Promise<ChildProcessWithoutNullStreams> | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly spawner: ConfinedSpawner) {}

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
    const child = this.child ?? (await this.starting?.catch(() => undefined));
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.stdin.end();
    child.kill('SIGKILL');
    await exited;
  }

  private async call<T>(op: string, payload: Record<string, unknown>): Promise<T> {
    if (this.closed) throw sandboxError('session_closed', 'the sandbox was closed');
    const child = await this.process();
    const id = this.nextId++;
    const answer = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
    child.stdin.write(`${JSON.stringify({ id, op, ...payload })}\n`);
    return answer as Promise<T>;
  }

  private process(): Promise<ChildProcessWithoutNullStreams> {
    if (this.child) return Promise.resolve(this.child);
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async start(): Promise<ChildProcessWithoutNullStreams> {
    const spec = await this.spawner(process.execPath, [
      '--input-type=module',
      '--no-warnings',
      '-e',
      CONFINED_FS_SERVER,
    ]);
    const child = spawn(spec.file, [...spec.args], {
      env: { ...spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(spec.uid === undefined ? {} : { uid: spec.uid }),
      ...(spec.gid === undefined ? {} : { gid: spec.gid }),
    });
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
    child.on('exit', () => this.stopped(child, stderr));
    child.on('error', () => this.stopped(child, stderr));
    this.child = child;
    return child;
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

  private stopped(child: ChildProcessWithoutNullStreams, stderr: string): void {
    if (this.child === child) this.child = undefined;
    const error = sandboxError(
      this.closed ? 'session_closed' : 'session_dead',
      `the sandbox's file helper stopped${stderr.trim() ? `: ${stderr.trim().slice(-500)}` : ''}`,
    );
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
  }
}
