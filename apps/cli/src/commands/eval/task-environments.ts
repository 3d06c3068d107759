import { AppError, isAppError } from '@caravel/errors';
import {
  buildOnHost,
  repoCachePath,
  type BuildEgressOptions,
  type BuiltEnvironment,
} from '@caravel/swegen';
import { access, chmod, mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SuiteTask } from './eval-suite.js';

/** A task's environment, or why it could not be built (its attempts are then errors). */
export type TaskEnvironment = { environment: BuiltEnvironment } | { error: string };

const hasGit = (dir: string) =>
  access(join(dir, '.git')).then(
    () => true,
    () => false,
  );

/**
 * The local clone each task's environment is built from: `--repo-path` for every task, else the
 * swegen repository cache of its task.toml `source_repo`. A task with neither is refused before
 * any attempt runs, naming it.
 */
export async function clonesFor(
  tasks: readonly SuiteTask[],
  options: { repoPath?: string; stateDir: string },
): Promise<Map<string, string>> {
  const clones = new Map<string, string>();
  for (const task of tasks) {
    if (options.repoPath) {
      clones.set(task.taskId, resolve(options.repoPath));
      continue;
    }
    const cached = task.sourceRepo
      ? repoCachePath(resolve(options.stateDir), task.sourceRepo)
      : undefined;
    if (!cached || !(await hasGit(cached)))
      throw new AppError(
        'BAD_REQUEST',
        `no local clone for task ${task.taskId}${task.sourceRepo ? ` (${task.sourceRepo})` : ''}: pass --repo-path, or --state-dir where swegen cached it`,
      );
    clones.set(task.taskId, cached);
  }
  return clones;
}

/** Settings of {@link TaskEnvironments}. */
export interface TaskEnvironmentsOptions {
  readonly bwrapPath?: string;
  readonly signal?: AbortSignal;
  /** What build steps reach through the egress proxy: the eval's sandbox allowlist and mirrors. */
  readonly egress?: BuildEgressOptions;
}

/**
 * Builds each task's environment once, when its first attempt needs it, under `workDir`, and
 * drops it when its last attempt is done. A build that fails (the Dockerfile's fault) is kept as
 * the task's error.
 */
export class TaskEnvironments {
  private readonly builds = new Map<string, Promise<TaskEnvironment>>();

  constructor(
    private readonly workDir: string,
    private readonly clones: ReadonlyMap<string, string>,
    private readonly remaining: Map<string, number>,
    private readonly options: TaskEnvironmentsOptions = {},
  ) {}

  /** The task's environment, built on first use. */
  for(task: SuiteTask): Promise<TaskEnvironment> {
    let build = this.builds.get(task.taskId);
    if (!build) {
      build = this.build(task);
      this.builds.set(task.taskId, build);
    }
    return build;
  }

  /** One attempt of the task is over; after its last one the build is removed. */
  async release(task: SuiteTask): Promise<void> {
    const left = (this.remaining.get(task.taskId) ?? 1) - 1;
    this.remaining.set(task.taskId, left);
    if (left > 0) return;
    this.builds.delete(task.taskId);
    await rm(join(this.workDir, task.taskId), { recursive: true, force: true });
  }

  private async build(task: SuiteTask): Promise<TaskEnvironment> {
    const dir = join(this.workDir, task.taskId);
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o755);
    try {
      const environment = await buildOnHost({
        taskDir: task.dir,
        repoPath: this.clones.get(task.taskId) ?? '',
        workDir: dir,
        timeoutMs: task.timeouts.buildMs,
        ...(this.options.bwrapPath ? { bwrapPath: this.options.bwrapPath } : {}),
        ...(this.options.signal ? { signal: this.options.signal } : {}),
        ...(this.options.egress ? { egress: this.options.egress } : {}),
      });
      return { environment };
    } catch (error) {
      if (!isAppError(error) || this.options.signal?.aborted) throw error;
      return { error: `the task's environment did not build: ${error.message}` };
    }
  }
}
