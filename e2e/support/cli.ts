import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from './processes.js';

/** What a finished `caravel` command did. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment a user's shell gives the CLI: PATH and HOME, then what the test sets. */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/root', ...extra };
}

/** The built CLI (`node apps/cli/dist/main.js ...`) running as a user would start it. */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;
  private readonly waiters: { pattern: RegExp; resolve: (match: RegExpExecArray) => void }[] = [];

  constructor(
    args: readonly string[],
    options: { env?: Record<string, string>; cwd?: string; input?: string } = {},
  ) {
    this.child = spawn(process.execPath, [join(repoRoot, 'apps/cli/dist/main.js'), ...args], {
      cwd: options.cwd ?? repoRoot,
      env: options.env ?? userEnv(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdout?.on('data', (chunk: Buffer) => this.take('stdout', chunk));
    this.child.stderr?.on('data', (chunk: Buffer) => this.take('stderr', chunk));
    if (options.input !== undefined) this.child.stdin?.end(options.input);
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  /**
   * Resolves with the first match of `pattern` in stdout + stderr, as soon as it is printed; fails
   * with the output when the command ends, or `timeoutMs` passes, without printing it.
   */
  waitFor(pattern: RegExp, timeoutMs = 150_000): Promise<RegExpExecArray> {
    const found = pattern.exec(this.stdout + this.stderr);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const fail = (why: string) => () =>
        reject(new Error(`${why} without printing ${pattern}:\n${this.stdout}${this.stderr}`));
      const timer = setTimeout(fail(`${timeoutMs} ms passed`), timeoutMs);
      this.waiters.push({
        pattern,
        resolve: (match) => {
          clearTimeout(timer);
          resolve(match);
        },
      });
      void this.exited.then(() => clearTimeout(timer)).then(fail('exited'));
    });
  }

  signal(name: NodeJS.Signals): void {
    this.child.kill(name);
  }

  /**
   * Resolves when the command has ended; one still running after `timeoutMs` is killed and the
   * wait fails with everything it printed.
   */
  async result(timeoutMs = 150_000): Promise<CliResult> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>(
      (resolve) => (timer = setTimeout(() => resolve('late'), timeoutMs)),
    );
    const code = await Promise.race([this.exited, late]);
    clearTimeout(timer);
    if (code === 'late') {
      this.child.kill('SIGKILL');
      throw new Error(`still running after ${timeoutMs} ms:\n${this.stdout}${this.stderr}`);
    }
    return { code, stdout: this.stdout, stderr: this.stderr };
  }

  /** Kills the command if it still runs (a test's cleanup). */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private take(stream: 'stdout' | 'stderr', chunk: Buffer): void {
    this[stream] += chunk.toString();
    const all = this.stdout + this.stderr;
    for (const waiter of [...this.waiters]) {
      const found = waiter.pattern.exec(all);
      if (!found) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(found);
    }
  }
}

/** Runs `caravel ...args` to its end. */
export function caravel(
  args: readonly string[],
  options: { env?: Record<string, string>; cwd?: string; input?: string } = {},
): Promise<CliResult> {
  return new CliProcess(args, options).result();
}

/** A stack trace's frame lines, which no user should see for a bad input. */
export const STACK_FRAME = /\n\s+at /;
