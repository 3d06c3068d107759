import { constants } from 'node:fs';
import { access, readdir, readFile } from 'node:fs/promises';
import { isAppError } from '@caravel/errors';
import { basename, join, posix, resolve } from 'node:path';
import { swegenError } from '../errors/swegen-errors.js';
import { parseDockerfile, sourceFetch } from './dockerfile-plan.js';
import type { BuildEgressOptions } from './build-egress.js';
import { findHarbor, validateWithHarbor } from './harbor-runner.js';
import { validateOnHost } from './host-validator.js';
import type { TaskValidation } from './validation-result.js';

/** How to run validations: Harbor when installed (`auto`), or always one of them. */
export type ValidationRunner = 'auto' | 'harbor' | 'bwrap';

/** Settings of `validateTasks`. */
export interface ValidateOptions {
  readonly runner?: ValidationRunner;
  /** A local clone of the source repository; else the swegen repo cache is searched. */
  readonly repoPath?: string;
  /** The swegen state directory (`.swegen`): its `repos/` cache and `jobs/` output. */
  readonly stateDir: string;
  /** Tasks validated at once in batch mode (default 4). */
  readonly maxParallel?: number;
  /** The PATH searched for `harbor`. */
  readonly searchPath?: string;
  readonly bwrapPath?: string;
  /**
   * What a task's build steps reach on the host (default: the package registries). Harbor's
   * builds are Docker's, with Docker's network.
   */
  readonly egress?: BuildEgressOptions;
  /** Called as each task finishes (batch progress). */
  readonly onResult?: (result: TaskValidation) => void;
  /** Stops the validation (Harbor, the build and trial sandboxes); it rejects with the reason. */
  readonly signal?: AbortSignal;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** A task directory (it has tests/test.sh), or every such sub-directory of a dataset directory, sorted. */
export async function discoverTasks(path: string): Promise<string[]> {
  const root = resolve(path);
  if (await exists(join(root, 'tests', 'test.sh'))) return [root];
  const entries = await readdir(root, { withFileTypes: true }).catch(() => {
    throw swegenError('invalid_input', `${path} is neither a task nor a directory of tasks`);
  });
  const tasks: string[] = [];
  for (const entry of entries
    .filter((e) => e.isDirectory())
    .sort((a, b) => a.name.localeCompare(b.name))) {
    if (await exists(join(root, entry.name, 'tests', 'test.sh')))
      tasks.push(join(root, entry.name));
  }
  if (tasks.length === 0)
    throw swegenError('invalid_input', `no task (a directory with tests/test.sh) under ${path}`);
  return tasks;
}

/** The cache directory of a clone URL: `<stateDir>/repos/<owner>/<name>`. */
export function repoCacheDir(stateDir: string, url: string): string | undefined {
  const match = /([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url);
  return match
    ? join(stateDir, 'repos', (match[1] ?? '').toLowerCase(), (match[2] ?? '').toLowerCase())
    : undefined;
}

async function repoFor(taskDir: string, options: ValidateOptions): Promise<string> {
  if (options.repoPath) return resolve(options.repoPath);
  const dockerfile = await readFile(join(taskDir, 'environment', 'Dockerfile'), 'utf8').catch(
    () => '',
  );
  let cwd = '/';
  for (const ins of parseDockerfile(dockerfile)) {
    if (ins.keyword === 'WORKDIR') cwd = posix.resolve(cwd, ins.args.trim());
    const fetch = ins.keyword === 'RUN' ? sourceFetch(ins.args, cwd) : undefined;
    if (!fetch) continue;
    const cached = repoCacheDir(options.stateDir, fetch.url);
    if (cached && (await exists(join(cached, '.git')))) return cached;
    if (await exists(join(fetch.url, '.git'))) return fetch.url;
  }
  throw swegenError(
    'invalid_input',
    `no local clone for ${taskDir}: pass --repo-path (validation without Docker checks the repository out from a local clone)`,
  );
}

/** The runner a validation uses: `harbor` (its path) when chosen or, under `auto`, installed. */
async function chooseRunner(options: ValidateOptions): Promise<string | undefined> {
  const runner = options.runner ?? 'auto';
  const harbor = runner === 'bwrap' ? undefined : await findHarbor(options.searchPath ?? '');
  if (!harbor && runner === 'harbor')
    throw swegenError('invalid_input', 'harbor is not installed (not found on PATH)');
  if (!harbor) await assertBubblewrap(options.bwrapPath ?? DEFAULT_BWRAP, runner);
  return harbor;
}

/** Where the host validator looks for bubblewrap unless told otherwise. */
const DEFAULT_BWRAP = '/usr/bin/bwrap';

/** Validation on the host needs bubblewrap: without it, one line saying what to install. */
async function assertBubblewrap(bwrapPath: string, runner: ValidationRunner): Promise<void> {
  const found = await access(bwrapPath, constants.X_OK).then(
    () => true,
    () => false,
  );
  if (found) return;
  const or = runner === 'auto' ? ', or install Harbor (harbor on PATH)' : '';
  throw swegenError(
    'invalid_input',
    `cannot validate: bubblewrap is not installed (${bwrapPath}); apt-get install bubblewrap${or}`,
  );
}

/**
 * Validates one task: with Harbor when `runner` is `harbor`, or `auto` and `harbor` is on the
 * search path; otherwise on the host in bubblewrap.
 */
export async function validateTask(
  taskDir: string,
  options: ValidateOptions,
): Promise<TaskValidation> {
  const jobsDir = join(options.stateDir, 'jobs');
  const harbor = await chooseRunner(options);
  if (harbor) return validateWithHarbor(harbor, taskDir, jobsDir, options.signal);
  return validateOnHost(taskDir, {
    repoPath: await repoFor(taskDir, options),
    jobsDir,
    ...(options.bwrapPath ? { bwrapPath: options.bwrapPath } : {}),
    ...(options.egress ? { egress: options.egress } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

function failedValidation(
  taskDir: string,
  error: unknown,
  runner: TaskValidation['runner'],
): TaskValidation {
  if (!isAppError(error)) throw error;
  const trial = (agent: 'nop' | 'oracle') => ({ agent, reward: null, error: error.message });
  return {
    taskId: basename(taskDir),
    taskDir,
    runner,
    nop: trial('nop'),
    oracle: trial('oracle'),
    passed: false,
  };
}

/** Validates a task or every task of a directory, `maxParallel` at a time, in discovery order. */
export async function validateTasks(
  path: string,
  options: ValidateOptions,
): Promise<TaskValidation[]> {
  const tasks = await discoverTasks(path);
  const runner = (await chooseRunner(options)) ? 'harbor' : 'bwrap-host';
  const results: TaskValidation[] = new Array<TaskValidation>(tasks.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < tasks.length; i = next++) {
      const result = await validateTask(tasks[i] ?? '', options).catch((error: unknown) => {
        if (options.signal?.aborted) throw error;
        return failedValidation(tasks[i] ?? '', error, runner);
      });
      results[i] = result;
      options.onResult?.(result);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(options.maxParallel ?? 4, tasks.length) }, worker),
  );
  return results;
}
