import { open } from 'node:fs/promises';
import { Writable } from 'node:stream';
import {
  HOOKLESS_GIT_ENV,
  oneShotTimedOut,
  oneShotTooLarge,
  type OneShotOptions,
  type OneShotResult,
} from '../one-shot.js';
import { KubernetesExecProcess, type ExecTarget } from './kubernetes-exec.js';

const MAX_STDERR_BYTES = 64 * 1024;

/**
 * The command line of a one-shot exec: the hookless git settings through `env` (an exec takes no
 * environment of its own; the rest is the container's), and coreutils' `timeout` so the command
 * dies in the pod too when it runs too long.
 */
export function oneShotCommand(argv: readonly string[], timeoutMs: number): string[] {
  const env = Object.entries(HOOKLESS_GIT_ENV).map(([key, value]) => `${key}=${value}`);
  const seconds = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
  return ['env', ...env, 'timeout', '-s', 'KILL', seconds, ...argv];
}

/**
 * Runs one command as an exec of its own in the sandbox's pod (no session needed) and streams its
 * standard output into `options.outputFile` (created exclusively, mode 0600): how bytes leave a
 * kubernetes sandbox. Too much output or too long a run drops the exec and fails, as for the
 * other providers.
 */
export async function runOneShotExec(
  target: ExecTarget,
  argv: readonly string[],
  options: OneShotOptions,
): Promise<OneShotResult> {
  const output = await open(options.outputFile, 'wx', 0o600);
  try {
    return await new Promise<OneShotResult>((resolve, reject) => {
      let outputBytes = 0;
      let stderr = '';
      let failure: Error | undefined;
      let exec: KubernetesExecProcess | undefined;
      const stop = (error: Error) => {
        failure ??= error;
        exec?.disconnect();
      };
      const timer = setTimeout(() => stop(oneShotTimedOut(options.timeoutMs)), options.timeoutMs);
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          outputBytes += chunk.length;
          if (outputBytes > options.maxOutputBytes) {
            stop(oneShotTooLarge(options.maxOutputBytes));
            done();
            return;
          }
          output.write(chunk).then(() => done(), done);
        },
      });
      KubernetesExecProcess.start(target, oneShotCommand(argv, options.timeoutMs))
        .then((started) => {
          exec = started;
          if (failure) started.disconnect();
          started.stdout.pipe(sink);
          started.stderr.on('data', (chunk: Buffer) => {
            if (stderr.length < MAX_STDERR_BYTES) stderr += chunk.toString('utf8');
          });
          started.once('exit', (code: number | null) => {
            clearTimeout(timer);
            const settle = () => {
              if (failure) reject(failure);
              else
                resolve({
                  exitCode: code ?? 255,
                  stderr: stderr.slice(0, MAX_STDERR_BYTES),
                  outputBytes,
                });
            };
            if (failure || sink.writableFinished) settle();
            else sink.once('finish', settle);
          });
        })
        .catch((error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  } finally {
    await output.close();
  }
}
