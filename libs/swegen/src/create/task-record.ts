import { join } from 'node:path';
import type { PullRequestInfo } from '../pr/pr-source.js';
import { dedupeKeyFor } from '../rules/task-id.js';
import { CreateLog } from '../state/create-log.js';

/** A task handed to a publish hook. */
export interface TaskToPublish {
  readonly taskId: string;
  readonly taskDir: string;
  readonly pr: PullRequestInfo;
}

/** What a publish achieved. */
export interface PublishOutcome {
  /** Whether the task reached the dataset repository. */
  readonly published: boolean;
  /** The dataset PR of the task, when published. */
  readonly prUrl?: string;
}

/** Publishes a task to the dataset repository (idempotent: a published task yields its PR). */
export type PublishHook = (task: TaskToPublish) => Promise<PublishOutcome>;

/**
 * Publishes `task` (when there is a hook), then makes its `create.jsonl` record say what that
 * achieved: `published`, and the dataset PR's URL. The record replaces the key's earlier ones,
 * so a publish-only retry after a failed publish turns `published: false` into true in place.
 * When the publish throws, the record is still written (published false: the next run
 * republishes instead of regenerating) and the error raised.
 */
export async function publishAndRecord(
  stateDir: string,
  publish: PublishHook | undefined,
  task: TaskToPublish,
): Promise<PublishOutcome> {
  let outcome: PublishOutcome = { published: false };
  let failure: Error | undefined;
  if (publish) {
    outcome = await publish(task).catch((error: unknown) => {
      failure = error instanceof Error ? error : new Error(String(error));
      return { published: false };
    });
  }
  await new CreateLog(join(stateDir, 'create.jsonl')).put({
    key: dedupeKeyFor(task.pr.repo, task.pr.number),
    repo: task.pr.repo,
    pr: task.pr.number,
    task_id: task.taskId,
    harbor: task.taskDir,
    ts: new Date().toISOString(),
    published: outcome.published,
    ...(outcome.published && outcome.prUrl ? { pr_url: outcome.prUrl } : {}),
  });
  if (failure !== undefined) throw failure;
  return outcome;
}
