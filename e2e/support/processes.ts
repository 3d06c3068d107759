import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

export const repoRoot = join(new URL('.', import.meta.url).pathname, '..', '..');

/**
 * Ports below the kernel's ephemeral range (Linux's default starts at 32768): the port a test
 * gives a service must not be taken between this check and the service's `listen`, and an
 * outgoing connection of any process (a pg or NATS client) takes its local port from the
 * ephemeral range — once one took 40707 there, and ingress failed with EADDRINUSE.
 */
const SERVICE_PORTS = { first: 20_000, count: 12_000 };

function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port nobody listens on right now, outside the range outgoing connections take theirs from. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = SERVICE_PORTS.first + Math.floor(Math.random() * SERVICE_PORTS.count);
    if (await listensOn(port)) return port;
  }
  throw new Error('no free port below the ephemeral range after 100 tries');
}

/**
 * Builds every project to dist (the same build `npm start` and the images use), once per Jest
 * process: test files run one after another in it (`--runInBand`) and each gets its own copy of
 * `process.env` and globals, so a stamp file named after the process (pid and start time) marks the build as done.
 */
export function buildWorkspace(): void {
  // `npm test` built it before starting the stages that use it (and says so).
  if (process.env['CARAVEL_PREBUILT'] === '1') return;
  const startedAt = Math.round(performance.timeOrigin);
  const stamp = join(tmpdir(), `caravel-e2e-built-${process.pid}-${startedAt}`);
  if (existsSync(stamp)) return;
  const result = spawnSync(process.execPath, ['tools/scripts/build.mjs'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`build failed: ${result.stderr}`);
  writeFileSync(stamp, '');
}

/**
 * One service running as its own OS process, with its output kept for diagnostics (`cli` runs
 * `caravel start`: plain `caravel` only prints its usage).
 */
export class ServiceProcess {
  private output = '';
  private readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(
    readonly name: string,
    readonly port: number,
    env: Record<string, string>,
    args: readonly string[] = name === 'cli' ? ['start'] : [],
  ) {
    const main = join(repoRoot, 'apps', name, 'dist', 'main.js');
    this.child = spawn(process.execPath, [main, ...args], {
      cwd: repoRoot,
      env: { PATH: process.env['PATH'] ?? '', ...env, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.child.stderr?.on('data', (chunk: Buffer) => (this.output += chunk.toString()));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get log(): string {
    return this.output;
  }

  /** Resolves with the exit code once the process ends by itself (or is killed after a timeout). */
  async waitForExit(timeoutMs = 30_000): Promise<number | null> {
    const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }

  /** Kills the process outright (SIGKILL, no draining) and resolves with its exit status. */
  async kill(): Promise<number | string | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<string | null>((resolve) =>
      this.child.once('exit', (_code, signal) => resolve(signal)),
    );
    this.child.kill('SIGKILL');
    return exited;
  }

  /** Sends SIGTERM and resolves with the exit code (null if it had to be killed). */
  async stop(graceMs = 15_000): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}
