import { access } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { createTask, type CreateTaskOptions } from '../create/create-task.js';
import { publishAndRecord } from '../create/task-record.js';
import { deadline } from '../errors/deadline.js';
import { swegenErrorReason } from '../errors/swegen-errors.js';
import type { PrSource, PullRequestInfo } from '../pr/pr-source.js';
import { publishHookOf, type TaskPublisher } from '../publish/task-publisher.js';
import { taskIdFor } from '../rules/task-id.js';
import type { FailureCategory } from './farm-state.js';

/** What `create` needs besides the PR, the source and where things go. */
export type FarmCreateSettings = Omit<
  CreateTaskOptions,
  | 'repo'
  | 'pr'
  | 'source'
  | 'stateDir'
  | 'tasksDir'
  | 'publish'
  | 'preflight'
  | 'signal'
  | 'dryRun'
  | 'force'
  | 'log'
>;

/** The outcome of one PR in a farm run. */
export type PrResult =
  | {
      readonly status: 'success';
      readonly taskId: string;
      readonly taskDir: string;
      readonly published: boolean;
      readonly prUrl?: string;
    }
  | { readonly status: 'previewed'; readonly taskId: string }
  | { readonly status: 'failure'; readonly category: FailureCategory; readonly message: string }
  /** Stops the farm; the PR stays pending (publish_failed / model rate limited). */
  | {
      readonly status: 'publish_failed' | 'rate_limited';
      readonly error: unknown;
      readonly message: string;
    };

/** Everything one PR's processing needs. */
export interface FarmHandContext {
  readonly repo: string;
  readonly source: PrSource;
  readonly stateDir: string;
  readonly tasksDir: string;
  readonly create: FarmCreateSettings;
  readonly publisher?: TaskPublisher;
  /** PRs whose validated task awaits its publish (publish-only retry when it is on disk). */
  readonly pendingPublish: (pr: number) => boolean;
  readonly dryRun: boolean;
  /** A PR's generation that takes longer is abandoned (category `timeout`); none when absent. */
  readonly timeoutMs?: number;
  readonly log: (line: string) => void;
}

const CATEGORY: Record<string, FailureCategory> = {
  trivial_pr: 'trivial',
  missing_issue: 'no_issue',
  validation_failed: 'validation_failed',
  already_exists: 'already_exists',
  git_failed: 'git_error',
  timed_out: 'timeout',
};

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** Publishes the task on disk and brings its create.jsonl record up to date, both ways. */
async function publishExisting(
  ctx: FarmHandContext,
  pr: PullRequestInfo,
  taskId: string,
  taskDir: string,
): Promise<PrResult> {
  try {
    const task = { taskId, taskDir, pr };
    const result = await publishAndRecord(ctx.stateDir, publishHookOf(ctx.publisher!), task);
    return { status: 'success', taskId, taskDir, ...result };
  } catch (error) {
    return { status: 'publish_failed', error, message: (error as Error).message };
  }
}

/**
 * Processes one PR: a PR whose task awaits its publish and is still on disk is only published
 * again (regenerating would throw away a validated task); otherwise `create` runs, publishing
 * through the publisher when there is one, its generation abandoned after `timeoutMs`. A task
 * directory without a dedupe record is republished when publishing is on. Failures are
 * classified by their coded reason.
 */
export async function farmPr(ctx: FarmHandContext, pr: PullRequestInfo): Promise<PrResult> {
  const taskId = taskIdFor(pr.repo, pr.number);
  const taskDir = resolve(ctx.tasksDir, taskId);
  const onDisk = await exists(join(taskDir, 'tests'));
  if (ctx.publisher && !ctx.dryRun && ctx.pendingPublish(pr.number) && onDisk) {
    ctx.log(`#${pr.number}: publishing the task already on disk (no regeneration)`);
    return publishExisting(ctx, pr, taskId, taskDir);
  }
  const limit = deadline(ctx.timeoutMs, `#${pr.number}`);
  try {
    const created = await createTask({
      ...ctx.create,
      repo: ctx.repo,
      pr: pr.number,
      source: ctx.source,
      stateDir: ctx.stateDir,
      tasksDir: ctx.tasksDir,
      dryRun: ctx.dryRun,
      log: ctx.log,
      ...(limit.signal ? { signal: limit.signal } : {}),
      ...(ctx.publisher && !ctx.dryRun ? { publish: publishHookOf(ctx.publisher) } : {}),
    });
    if (created.status === 'previewed') return { status: 'previewed', taskId };
    return {
      status: 'success',
      taskId,
      taskDir: created.taskDir,
      published: created.published,
      ...(created.prUrl ? { prUrl: created.prUrl } : {}),
    };
  } catch (error) {
    return classify(ctx, pr, error, taskId, taskDir);
  } finally {
    limit.clear();
  }
}

async function classify(
  ctx: FarmHandContext,
  pr: PullRequestInfo,
  error: unknown,
  taskId: string,
  taskDir: string,
): Promise<PrResult> {
  const reason = swegenErrorReason(error);
  const message = error instanceof Error ? error.message : String(error);
  if (reason === 'publish_error' || reason === 'publish_auth_error')
    return { status: 'publish_failed', error, message };
  if (reason === 'rate_limited') return { status: 'rate_limited', error, message };
  if (reason === 'already_exists' && ctx.publisher && !ctx.dryRun) {
    ctx.log(`#${pr.number}: ${taskId} is on disk without a record; publishing it`);
    return publishExisting(ctx, pr, taskId, taskDir);
  }
  return { status: 'failure', category: (reason && CATEGORY[reason]) ?? 'other', message };
}
