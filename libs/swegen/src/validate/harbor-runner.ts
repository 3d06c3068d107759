import { spawn } from 'node:child_process';
import { access, constants, mkdir, open, readFile } from 'node:fs/promises';
import { basename, delimiter, join, resolve } from 'node:path';
import { abortReason } from '../errors/deadline.js';
import { readHarborJob } from './harbor-job.js';
import { validationPassed, type TaskValidation, type TrialOutcome } from './validation-result.js';

/** The `harbor` executable on `path` (a PATH-style list), or undefined. */
export async function findHarbor(path: string): Promise<string | undefined> {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'harbor');
    if (
      await access(candidate, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  return undefined;
}

/** Harbor's built-in agents a validation runs. */
export type HarborAgent = 'nop' | 'oracle';

/**
 * The `harbor run` command line of one validation trial (swe-gen-harbor.md §2.7, §1.9):
 * `--agent nop|oracle`, `-p` naming the task directory itself (never `-t`, whose meaning changed
 * between Harbor releases), the Docker environment, and the job written to
 * `<jobsDir>/<jobName>/` (`--jobs-dir`, `--job-name`: `src/harbor/cli/jobs.py` of Harbor,
 * read at 15735640198/harbor@82ee01d3, which keeps upstream history). NOP keeps its image
 * (`--no-delete`) so that Oracle, run next, reuses it; Oracle deletes it, Harbor's default.
 */
export function harborRunArgs(
  agent: HarborAgent,
  taskDir: string,
  jobsDir: string,
  jobName: string,
): string[] {
  return [
    'run',
    '--agent',
    agent,
    '-p',
    taskDir,
    '--jobs-dir',
    jobsDir,
    '--job-name',
    jobName,
    '--env',
    'docker',
    ...(agent === 'nop' ? ['--no-delete'] : []),
  ];
}

/** Runs harbor with its output to `logFile`; resolves with its exit status. */
async function runHarbor(
  harbor: string,
  args: readonly string[],
  logFile: string,
  signal?: AbortSignal,
): Promise<number> {
  const log = await open(logFile, 'a');
  try {
    return await new Promise<number>((done, fail) => {
      const child = spawn(harbor, args, { stdio: ['ignore', log.fd, log.fd] });
      const stop = (): void => void child.kill('SIGTERM');
      signal?.addEventListener('abort', stop, { once: true });
      child.on('error', (error) => {
        signal?.removeEventListener('abort', stop);
        fail(error);
      });
      child.on('close', (code) => {
        signal?.removeEventListener('abort', stop);
        if (signal?.aborted) fail(abortReason(signal));
        else done(code ?? 1);
      });
    });
  } finally {
    await log.close();
  }
}

async function lastLine(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trim().split('\n').at(-1)?.slice(0, 300) ?? '';
}

async function harborTrial(
  harbor: string,
  taskDir: string,
  jobsDir: string,
  agent: HarborAgent,
  signal?: AbortSignal,
): Promise<TrialOutcome> {
  await mkdir(jobsDir, { recursive: true });
  const jobName = `${agent}-${Date.now()}`;
  const logFile = join(jobsDir, `${jobName}.log`);
  const status = await runHarbor(
    harbor,
    harborRunArgs(agent, taskDir, jobsDir, jobName),
    logFile,
    signal,
  );
  const jobDir = join(jobsDir, jobName);
  const outcome = await readHarborJob(jobDir);
  if (outcome.reward !== null) return { agent, reward: outcome.reward, logDir: jobDir };
  const tail = status === 0 ? '' : await lastLine(logFile);
  const exit =
    status === 0 ? '' : `; harbor exited ${status}${tail ? `: ${tail}` : ''} (${logFile})`;
  return { agent, reward: null, error: `${outcome.error}${exit}`, logDir: jobDir };
}

/**
 * Validates one task with Harbor (Docker required): `harbor run` with the NOP agent, then with
 * the Oracle agent, each job under `<jobsDir>/<task id>/harbor/`, its reward read from the job's
 * result files (see `readHarborJob`). A missing or malformed result is that trial's error, so the
 * task fails validation with the reason in its summary line. `signal` stops Harbor (SIGTERM).
 */
export async function validateWithHarbor(
  harbor: string,
  taskDir: string,
  jobsDir: string,
  signal?: AbortSignal,
): Promise<TaskValidation> {
  const task = resolve(taskDir);
  const dir = join(jobsDir, basename(task), 'harbor');
  const nop = await harborTrial(harbor, task, dir, 'nop', signal);
  const oracle = await harborTrial(harbor, task, dir, 'oracle', signal);
  return {
    taskId: basename(task),
    taskDir: task,
    runner: 'harbor',
    nop,
    oracle,
    passed: validationPassed(nop, oracle),
  };
}
