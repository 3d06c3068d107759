import { access, cp, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isAppError } from '@caravel/errors';
import type { PublishHook } from '../create/task-record.js';
import { swegenError, swegenErrorReason } from '../errors/swegen-errors.js';
import type { GitRunner } from '../git/git-runner.js';
import { DatasetApi } from './dataset-api.js';
import { datasetCloneUrl, publishGit, type ResolvedPublishConfig } from './publish-config.js';

/** One validated task to publish. */
export interface PublishRequest {
  readonly taskId: string;
  readonly taskDir: string;
  readonly sourceRepo: string;
  readonly sourcePr: number;
  readonly sourcePrUrl: string;
}

/** What a publish achieved. */
export interface PublishResult {
  /** True when the task is on the dataset repository (a branch, and a PR unless already merged). */
  readonly published: boolean;
  readonly prUrl?: string;
  readonly branch: string;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** `publisher` as `create`'s publish hook: the task's source PR is the one it was made from. */
export function publishHookOf(publisher: TaskPublisher): PublishHook {
  return (task) =>
    publisher.publish({
      taskId: task.taskId,
      taskDir: task.taskDir,
      sourceRepo: task.pr.repo,
      sourcePr: task.pr.number,
      sourcePrUrl: task.pr.htmlUrl,
    });
}

/** Title, body and commit message of a task PR. */
export function taskPullText(request: PublishRequest): { title: string; body: string } {
  return {
    title: `Add task: ${request.taskId}`,
    body: `Generated from \`${request.sourceRepo}\`#${request.sourcePr}\n\n${request.sourcePrUrl}\n`,
  };
}

/**
 * Publishes each task as its own branch `task/<id>` cut from the base and a PR whose body links
 * the source PR. Only `tasks/<id>/` is ever staged, forced past ignore rules (a dataset made from
 * SWE-gen's template ignores `tasks/`). Idempotent: an open PR has its branch refreshed and is
 * returned; a task already in the base byte for byte needs no commit. Any failure is
 * PUBLISH_ERROR (PUBLISH_AUTH_ERROR for a refused token). Serial only: one working tree.
 */
export class TaskPublisher {
  private readonly api: DatasetApi;
  private readonly git: GitRunner;
  private ready = false;

  constructor(
    private readonly config: ResolvedPublishConfig,
    deps: { fetch?: typeof fetch; sleep?: (ms: number) => Promise<void> } = {},
  ) {
    this.api = new DatasetApi({ token: config.token, apiUrl: config.apiUrl, ...deps });
    this.git = publishGit(config, config.cloneDir);
  }

  /** The dataset clone's git (the state store adds its worktree to it). */
  get clone(): GitRunner {
    return this.git;
  }

  /**
   * Once: the token must not be reported without push access (an absent `permissions` field only
   * warns), then the dataset is cloned or fetched.
   */
  async preflight(warn: (line: string) => void = () => undefined): Promise<void> {
    if (this.ready) return;
    const push = await this.api.pushPermission(this.config.repo);
    if (push === false) {
      throw swegenError(
        'publish_auth_error',
        `the publish token has no push access to ${this.config.repo} (permissions.push is false)`,
      );
    }
    if (push === undefined)
      warn(`${this.config.repo} reports no permissions for the token; trying to push anyway`);
    await this.wrap(async () => {
      if (!(await exists(join(this.config.cloneDir, '.git')))) {
        await mkdir(dirname(this.config.cloneDir), { recursive: true });
        await publishGit(this.config, dirname(this.config.cloneDir)).bytes([
          'clone',
          '--quiet',
          '--no-checkout',
          datasetCloneUrl(this.config),
          this.config.cloneDir,
        ]);
      }
      await this.git.bytes(['fetch', '--quiet', 'origin', this.config.baseBranch]);
    });
    this.ready = true;
  }

  /** Publishes one task (see the class). */
  async publish(request: PublishRequest): Promise<PublishResult> {
    await this.preflight();
    const branch = `${this.config.branchPrefix}${request.taskId}`;
    return this.wrap(async () => {
      await this.git.bytes(['fetch', '--quiet', 'origin', this.config.baseBranch]);
      const existing = this.config.dryRun
        ? undefined
        : await this.api.findOpenPull(this.config.repo, branch);
      const remoteSha = (
        await this.git.text(['ls-remote', '--heads', 'origin', `refs/heads/${branch}`])
      ).split('\t')[0];
      const base = `origin/${this.config.baseBranch}`;
      await this.git.bytes(['checkout', '--quiet', '--force', '-B', branch, base]);
      const staged = await this.stage(request);
      if (!staged) {
        if (remoteSha && !this.config.dryRun)
          await this.git.bytes([
            'push',
            '--quiet',
            '--force',
            'origin',
            `${base}:refs/heads/${branch}`,
          ]);
        return {
          published: !this.config.dryRun,
          branch,
          ...(existing ? { prUrl: existing.htmlUrl } : {}),
        };
      }
      await this.git.bytes([
        'commit',
        '--quiet',
        '--no-verify',
        '-m',
        `Add task: ${request.taskId}`,
      ]);
      if (this.config.dryRun) return { published: false, branch };
      await this.push(branch, remoteSha);
      if (existing) return { published: true, branch, prUrl: existing.htmlUrl };
      const created = await this.api.createPull(this.config.repo, {
        ...taskPullText(request),
        head: branch,
        base: this.config.baseBranch,
      });
      return { published: true, branch, prUrl: created.htmlUrl };
    });
  }

  /** Copies the task under `tasks/<id>` and stages only that path; false when nothing changed. */
  private async stage(request: PublishRequest): Promise<boolean> {
    if (!(await exists(request.taskDir)) || (await readdir(request.taskDir)).length === 0)
      throw swegenError(
        'publish_error',
        `task ${request.taskId} is missing from ${request.taskDir}`,
      );
    const rel = `${this.config.tasksPath}/${request.taskId}`;
    const target = join(this.config.cloneDir, rel);
    await rm(target, { recursive: true, force: true });
    await mkdir(dirname(target), { recursive: true });
    await cp(request.taskDir, target, { recursive: true, preserveTimestamps: true });
    await this.git.bytes(['add', '--all', '--force', '--', rel]);
    return !(await this.git.succeeds(['diff', '--cached', '--quiet']));
  }

  private async push(branch: string, remoteSha: string | undefined): Promise<void> {
    const refspec = `${branch}:refs/heads/${branch}`;
    const pushed = await this.git.succeeds(['push', '--quiet', 'origin', refspec]);
    if (pushed) return;
    if (!remoteSha) await this.git.bytes(['push', '--quiet', 'origin', refspec]);
    await this.git.bytes([
      'push',
      '--quiet',
      `--force-with-lease=refs/heads/${branch}:${remoteSha}`,
      'origin',
      refspec,
    ]);
  }

  /** Any failure while publishing is a publish error (auth errors keep their own reason). */
  private async wrap<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const reason = swegenErrorReason(error);
      if (reason === 'publish_error' || reason === 'publish_auth_error') throw error;
      const message = isAppError(error) || error instanceof Error ? error.message : String(error);
      throw swegenError('publish_error', `publishing to ${this.config.repo} failed: ${message}`);
    }
  }
}
