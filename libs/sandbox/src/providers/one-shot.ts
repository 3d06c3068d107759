import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { sandboxError } from '../sandbox.errors.js';

/** A process to start for one command, already wrapped in its provider's confinement. */
export interface OneShotSpawn {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
  readonly uid?: number;
  readonly gid?: number;
}

/** How a one-shot command is bounded and where its output goes. */
export interface OneShotOptions {
  /** A new file the host creates for the command's standard output (it must not exist). */
  readonly outputFile: string;
  /** The command is killed when its output grows past this. */
  readonly maxOutputBytes: number;
  readonly timeoutMs: number;
}

/** How a one-shot command ended. */
export interface OneShotResult {
  readonly exitCode: number;
  /** The first 64 KiB of its standard error. */
  readonly stderr: string;
  readonly outputBytes: number;
}

/**
 * Runs a command inside a sandbox's confinement (not in its session) and keeps its raw standard
 * output in a host file: how bytes leave a sandbox without the host reading anything the sandbox
 * can redirect (a path, a symlink). Providers that can start such a process implement it.
 */
export interface OneShotRunner {
  runOneShot(
    sandboxId: string,
    argv: readonly string[],
    options: OneShotOptions,
  ): Promise<OneShotResult>;
}

const MAX_STDERR_BYTES = 64 * 1024;

/** The error of a one-shot command stopped at its time limit (any provider's). */
export function oneShotTimedOut(timeoutMs: number): Error {
  return sandboxError('one_shot_timed_out', `a one-shot command ran past ${timeoutMs} ms`);
}

/** The error of a one-shot command stopped for writing too much (any provider's). */
export function oneShotTooLarge(maxOutputBytes: number): Error {
  return sandboxError(
    'one_shot_too_large',
    `a one-shot command wrote more than ${maxOutputBytes} bytes`,
  );
}

/**
 * Git settings for git the platform runs in a sandbox (one-shot commands, the broker's commit),
 * above the repository's own config (environment scope wins over files): no filesystem monitor,
 * no hooks and no signing program, whoever wrote the repository.
 */
export const HOOKLESS_GIT_ENV: Readonly<Record<string, string>> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_COUNT: '3',
  GIT_CONFIG_KEY_0: 'core.fsmonitor',
  GIT_CONFIG_VALUE_0: 'false',
  GIT_CONFIG_KEY_1: 'core.hooksPath',
  GIT_CONFIG_VALUE_1: '/dev/null',
  GIT_CONFIG_KEY_2: 'commit.gpgSign',
  GIT_CONFIG_VALUE_2: 'false',
};

/** Whether a provider can run one-shot commands. */
export function canRunOneShot(provider: object): provider is OneShotRunner {
  return typeof (provider as Partial<OneShotRunner>).runOneShot === 'function';
}

/**
 * Starts `spec`, streams its stdout into `options.outputFile` (created exclusively, mode 0600),
 * and kills its process group when it runs too long or writes too much (both are errors).
 */
export async function runOneShotProcess(
  spec: OneShotSpawn,
  options: OneShotOptions,
): Promise<OneShotResult> {
  const output = await open(options.outputFile, 'wx', 0o600);
  try {
    return await new Promise<OneShotResult>((resolve, reject) => {
      const child = spawn(spec.file, [...spec.args], {
        env: { ...spec.env },
        ...(spec.cwd ? { cwd: spec.cwd } : {}),
        ...(spec.uid === undefined ? {} : { uid: spec.uid }),
        ...(spec.gid === undefined ? {} : { gid: spec.gid }),
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      });
      let outputBytes = 0;
      let stderr = '';
      let failure: Error | undefined;
      let writes = Promise.resolve();
      const stop = (error: Error) => {
        failure ??= error;
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      };
      const timer = setTimeout(() => stop(oneShotTimedOut(options.timeoutMs)), options.timeoutMs);
      child.stdout.on('data', (chunk: Buffer) => {
        outputBytes += chunk.length;
        if (outputBytes > options.maxOutputBytes) {
          stop(oneShotTooLarge(options.maxOutputBytes));
          return;
        }
        child.stdout.pause();
        writes = writes.then(() => output.write(chunk)).then(() => void child.stdout.resume());
      });
      child.stderr.on('data', (chunk: Buffer) => {
        if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString('utf8');
      });
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code, signal) => {
        clearTimeout(timer);
        void writes.then(() => {
          if (failure) reject(failure);
          else
            resolve({
              exitCode: code ?? 128 + signalNumber(signal),
              stderr: stderr.slice(0, MAX_STDERR_BYTES),
              outputBytes,
            });
        }, reject);
      });
    });
  } finally {
    await output.close();
  }
}

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === 'SIGKILL' ? 9 : signal === 'SIGTERM' ? 15 : 1;
}
