import type { EnvSource } from '@caravel/config';
import type { EvalAttempt } from '@caravel/evals';
import { hostGit } from '@caravel/sandbox';
import { hostWorkdir, runHostTrial, type BuiltEnvironment } from '@caravel/swegen';
import { execFile } from 'node:child_process';
import { appendFileSync, existsSync } from 'node:fs';
import { chmod, cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { runTask, type RunReport } from '../run.command.js';
import type { EvalConfig } from './eval-config.js';
import type { SuiteTask } from './eval-suite.js';

const exec = promisify(execFile);
const COMMITTER = ['-c', 'user.name=Caravel', '-c', 'user.email=caravel@users.noreply.localhost'];

/** One attempt: the task, its built environment, where it works and with what. */
export interface AttemptInput {
  readonly task: SuiteTask;
  readonly attempt: number;
  readonly environment: BuiltEnvironment;
  /** A scratch folder of this attempt's own, traversable by the sandbox user (emptied first). */
  readonly attemptDir: string;
  /** Where what the attempt leaves goes (emptied first): run.log, the .traj, patch.diff, logs/. */
  readonly keepDir: string;
  /** The platform's data for the run (a worker slot's, reused across its attempts). */
  readonly dataDir: string;
  readonly config: EvalConfig;
  /** The runs' environment (the configuration's settings already laid over it). */
  readonly env: EnvSource;
  readonly signal?: AbortSignal;
  readonly bwrapPath?: string;
}

/** A patch ends with a newline (git's output is trimmed); none stays empty. */
function asPatch(diff: string | undefined): string {
  if (!diff?.trim()) return '';
  return diff.endsWith('\n') ? diff : `${diff}\n`;
}

/**
 * Makes `dir` a repository of the host's own. The tree was written by the task's build, which
 * ran the task's and its repository's code: a `.git` it left there (a config naming a filter
 * driver, `.gitattributes` applying it) would have host git run that code here, out of the
 * build's sandbox. So whatever `.git` the copy holds goes, and git starts afresh.
 */
async function freshRepository(dir: string): Promise<void> {
  await rm(join(dir, '.git'), { recursive: true, force: true });
  await hostGit(dir, ['init', '--quiet', '--initial-branch=main']);
}

/** The task's repository as the environment built it (bug in, tests out), as a git repository. */
export async function baseRepository(environment: BuiltEnvironment, dir: string): Promise<string> {
  await exec('cp', ['-R', `${hostWorkdir(environment)}/.`, dir]);
  await freshRepository(dir);
  await hostGit(dir, ['add', '-A']);
  await hostGit(dir, [...COMMITTER, 'commit', '--quiet', '--allow-empty', '-m', 'Task base']);
  return dir;
}

/**
 * Copies the environment to `app` and applies `patchFile` to the repository in it, in a repository
 * of its own (so git applies at its root whatever surrounds it), removed again after.
 */
export async function patchedCopy(
  environment: BuiltEnvironment,
  app: string,
  patchFile: string,
): Promise<void> {
  const repo = join(app, relative(environment.appDir, hostWorkdir(environment)));
  await exec('cp', ['-a', `${environment.appDir}/.`, app]);
  try {
    await freshRepository(repo);
    // The copy keeps the build's owners (the sandbox's uid under root): git's ownership check
    // would refuse it, and the repository is the one just made.
    await hostGit(repo, ['-c', 'safe.directory=*', 'apply', '--whitespace=nowarn', patchFile]);
  } finally {
    await rm(join(repo, '.git'), { recursive: true, force: true });
  }
}

/** Grades a patch as Harbor does: applied to a copy of the environment, tests/test.sh's reward. */
async function grade(
  input: AttemptInput,
  patch: string,
): Promise<{ resolved: boolean; error?: string }> {
  if (patch === '') return { resolved: false };
  const { environment } = input;
  const app = join(input.attemptDir, 'app');
  const patchFile = join(input.keepDir, 'patch.diff');
  await writeFile(patchFile, patch);
  try {
    await patchedCopy(environment, app, patchFile);
  } catch (error) {
    return { resolved: false, error: `the patch does not apply: ${(error as Error).message}` };
  }
  const outcome = await runHostTrial({
    agent: 'nop',
    taskDir: input.task.dir,
    taskId: input.task.taskId,
    environment: { ...environment, appDir: app },
    trialDir: join(input.attemptDir, 'verify'),
    agentTimeoutMs: input.task.timeouts.agentMs,
    verifierTimeoutMs: input.task.timeouts.verifierMs,
    ...(input.bwrapPath ? { bwrapPath: input.bwrapPath } : {}),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  return {
    resolved: outcome.reward !== null && outcome.reward >= 1,
    ...(outcome.error ? { error: outcome.error } : {}),
  };
}

function attemptOf(
  input: AttemptInput,
  report: RunReport,
  wallMs: number,
  patch: string,
  graded: { resolved: boolean; error?: string },
): EvalAttempt {
  return {
    attempt: input.attempt,
    resolved: graded.resolved,
    exitStatus: report.exitStatus || report.outcome,
    costUsd: report.totals.costUsd,
    modelCalls: report.steps,
    inputTokens: report.totals.inputTokens,
    outputTokens: report.totals.outputTokens,
    wallMs,
    patch,
    ...(report.trajectory ? { trajPath: report.trajectory } : {}),
    ...(graded.error ? { error: graded.error } : {}),
  };
}

/**
 * One attempt of Caravel's agent at a task, through `caravel run`'s own path (the embedded
 * platform, the configured model, middleware, prompts and sandbox) on the task's repository at
 * its base, then its patch graded by the task's own tests. A run that fails is an attempt
 * (unresolved, its exit status kept); a failure of the machinery (or an abort) throws, and the
 * attempt is not recorded.
 */
export async function runAttempt(input: AttemptInput): Promise<EvalAttempt> {
  const dir = input.attemptDir;
  for (const folder of [dir, input.keepDir]) await rm(folder, { recursive: true, force: true });
  await mkdir(join(dir, 'repo'), { recursive: true });
  await mkdir(input.keepDir, { recursive: true });
  // The sandbox user (bubblewrap runs as nobody under root) must reach the folders inside.
  await chmod(dir, 0o755);
  const repo = await baseRepository(input.environment, join(dir, 'repo'));
  const log = join(input.keepDir, 'run.log');
  const started = Date.now();
  const report = await runTask(input.env, {
    repo,
    task: input.task.instruction,
    model: input.config.model,
    dataDir: input.dataDir,
    write: (line) => appendFileSync(log, `${line}\n`),
    trajectory: join(input.keepDir, `${input.task.taskId}-${input.attempt}.traj`),
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const wallMs = Date.now() - started;
  const patch = asPatch(report.diff);
  try {
    const graded = await grade(input, patch);
    const logs = join(dir, 'verify', 'logs');
    if (existsSync(logs)) await cp(logs, join(input.keepDir, 'logs'), { recursive: true });
    return attemptOf(input, report, wallMs, patch, graded);
  } finally {
    // The working copies go; the log, the patch, the .traj and the verifier's logs stay.
    await rm(dir, { recursive: true, force: true });
  }
}
