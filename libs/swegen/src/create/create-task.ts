import type { SandboxProvider } from '@caravel/sandbox';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { access, readFile, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { swegenError } from '../errors/swegen-errors.js';
import type { PrSource, PullRequestInfo } from '../pr/pr-source.js';
import {
  checkSubstantiality,
  DEFAULT_SUBSTANTIALITY,
  type SubstantialityRule,
} from '../rules/relevant-source.js';
import { abortReason } from '../errors/deadline.js';
import { dedupeKeyFor, taskIdFor } from '../rules/task-id.js';
import { CreateLog } from '../state/create-log.js';
import { TaskReferences } from '../state/task-references.js';
import { summaryLine, type TaskValidation } from '../validate/validation-result.js';
import { completeSkeleton } from './completion-agent.js';
import { editableFingerprint } from './completion-workspace.js';
import { findLinkedIssues } from './linked-issues.finder.js';
import { splitPatches, type PatchSplit } from './patch-split.js';
import { evaluatePr, evaluationPrompt, type PrEvaluation } from './pr-evaluation.js';
import { ensureCachedRepo } from './repo-cache.js';
import { publishAndRecord, type PublishHook } from './task-record.js';
import { writeTaskSkeleton } from './task-writer.js';

/** The settings of one `create`. */
export interface CreateTaskOptions {
  readonly repo: string;
  readonly pr: number;
  readonly source: PrSource;
  /** The swegen state directory (create.jsonl, task_references.json, repos/, jobs/). */
  readonly stateDir: string;
  /** Where tasks are written (`<tasksDir>/<task id>`). */
  readonly tasksDir: string;
  /**
   * The model of the evaluation step and of the completion agent. Absent (only without
   * `completion`): nothing is evaluated and the skeleton is left for a person, its instruction
   * being the PR's title and body.
   */
  readonly model?: BaseChatModel;
  /** The sandbox the completion agent works in; absent: the skeleton is left for a human. */
  readonly completion?: {
    readonly provider: SandboxProvider;
    readonly hostWorkspace: (id: string) => string;
    readonly maxModelCalls?: number;
  };
  /** Validates a task directory (stopping on `signal`); required unless `validate` is false. */
  readonly validator?: (taskDir: string, signal?: AbortSignal) => Promise<TaskValidation>;
  readonly validate?: boolean;
  readonly requireIssue?: boolean;
  readonly requireMinimumDifficulty?: boolean;
  readonly substantiality?: SubstantialityRule;
  readonly useReferences?: boolean;
  readonly force?: boolean;
  readonly allowUnmerged?: boolean;
  /**
   * Stop after the model's evaluation: nothing is written (no task, no record). The farm's
   * `--dry-run` previews what it would generate this way.
   */
  readonly dryRun?: boolean;
  /**
   * Publishes a validated task (or a deduped one: a task on disk is no proof it reached the
   * dataset). Runs before the create.jsonl record, whose `published` flag says what it achieved;
   * when it throws, the record is still written (published false) and the error raised.
   */
  readonly publish?: PublishHook;
  /**
   * Checks, before anything else, that publishing can succeed (the dataset's push permission), so
   * a refused token costs no generation.
   */
  readonly preflight?: () => Promise<void>;
  /**
   * Abandons the generation (a per-PR deadline): the step in flight is stopped (model call,
   * agent, git, validation), the partial task directory removed, and `create` rejects with the
   * signal's reason. Publishing a validated task is not interrupted.
   */
  readonly signal?: AbortSignal;
  readonly log?: (line: string) => void;
}

/** What `create` produced. */
export interface CreateTaskResult {
  readonly status: 'created' | 'deduped' | 'previewed';
  readonly taskId: string;
  readonly taskDir: string;
  readonly validation?: TaskValidation;
  readonly evaluation?: PrEvaluation;
  /** Whether the task reached a dataset repository. */
  readonly published: boolean;
  /** The dataset PR of the task, when published. */
  readonly prUrl?: string;
}

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

async function gates(
  options: CreateTaskOptions,
  pr: PullRequestInfo,
): Promise<Awaited<ReturnType<typeof findLinkedIssues>>> {
  if (!pr.merged && !options.allowUnmerged)
    throw swegenError('pr_not_merged', `${pr.repo}#${pr.number} is not merged`);
  const issues = await findLinkedIssues(options.source, pr);
  if (issues.length === 0 && options.requireIssue !== false) {
    throw swegenError(
      'missing_issue',
      `${pr.repo}#${pr.number} links no issue (pass --no-require-issue to allow it)`,
    );
  }
  return issues;
}

/**
 * `swegen create`: turns one merged PR into a Harbor task. In order: PR metadata, the linked-issue
 * gate, the create.jsonl dedupe (a hit returns the recorded task), the full file list and the
 * source-count gate, the repository cache, the patch split, the model's evaluation (a "not
 * substantial" verdict is TRIVIAL_PR), the skeleton, the completion agent, the NOP/Oracle
 * validation (a failure removes the task: VALIDATION_FAILED), the task reference, and the
 * create.jsonl record.
 */
export async function createTask(options: CreateTaskOptions): Promise<CreateTaskResult> {
  if (!options.dryRun) await options.preflight?.();
  const pr = await options.source.getPullRequest(options.repo, options.pr);
  const issues = await gates(options, pr);
  const taskId = taskIdFor(pr.repo, pr.number);
  const recorded = await new CreateLog(join(options.stateDir, 'create.jsonl')).find(
    dedupeKeyFor(pr.repo, pr.number),
  );
  if (recorded && !options.force && (await exists(recorded.harbor))) {
    options.log?.(`${taskId}: already created at ${recorded.harbor}`);
    const deduped = { status: 'deduped' as const, taskId, taskDir: recorded.harbor };
    if (options.dryRun || !options.publish)
      return {
        ...deduped,
        published: recorded.published,
        ...(recorded.pr_url ? { prUrl: recorded.pr_url } : {}),
      };
    const task = { taskId, taskDir: recorded.harbor, pr };
    return { ...deduped, ...(await publishAndRecord(options.stateDir, options.publish, task)) };
  }
  const generated = await underDeadline(options.signal, () => generate(options, pr, issues));
  if (generated.status === 'previewed') return generated;
  const outcome = await publishAndRecord(options.stateDir, options.publish, {
    taskId,
    taskDir: generated.taskDir,
    pr,
  });
  return { ...generated, ...outcome };
}

/** Runs `work`; once `signal` aborted, whatever it throws is the signal's reason. */
async function underDeadline<T>(
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  signal?.throwIfAborted();
  try {
    return await work();
  } catch (error) {
    if (signal?.aborted) throw abortReason(signal);
    throw error;
  }
}

/** What a skeleton made without a model says: the PR's own words, the rest for a person. */
function unevaluated(pr: PullRequestInfo): PrEvaluation {
  return {
    is_substantial: true,
    reason: 'not evaluated: created without a model (--no-completion)',
    instruction: [pr.title, pr.body].filter((text) => text.trim() !== '').join('\n\n'),
    difficulty: 'medium',
    category: 'bugfix',
    tags: ['todo-swegen', 'todo-swegen', 'todo-swegen'],
  };
}

/** The model's evaluation of the PR, or the PR's own words when there is no model. */
async function evaluate(
  options: CreateTaskOptions,
  pr: PullRequestInfo,
  issues: Awaited<ReturnType<typeof findLinkedIssues>>,
  split: PatchSplit,
): Promise<PrEvaluation> {
  if (!options.model) return unevaluated(pr);
  const prompt = evaluationPrompt(pr, issues, split.testFiles, split.sourceFiles);
  return evaluatePr(options.model, prompt, options.signal);
}

/** The generation: gates, repo cache, patch split, evaluation, skeleton, completion, validation. */
async function generate(
  options: CreateTaskOptions,
  pr: PullRequestInfo,
  issues: Awaited<ReturnType<typeof findLinkedIssues>>,
): Promise<CreateTaskResult> {
  const log = options.log ?? (() => undefined);
  const { signal } = options;
  const taskId = taskIdFor(pr.repo, pr.number);
  const taskDir = resolve(options.tasksDir, taskId);
  const files = (await options.source.listFiles(pr.repo, pr.number)).map((f) => f.filename);
  const rule = options.substantiality ?? DEFAULT_SUBSTANTIALITY;
  if (options.requireMinimumDifficulty !== false) {
    const verdict = checkSubstantiality(files, rule);
    if (!verdict.ok)
      throw swegenError(
        'trivial_pr',
        `${pr.repo}#${pr.number} is too small or too large: ${verdict.reason}`,
      );
  }
  const previous = !options.dryRun && (await exists(taskDir));
  if (previous && !options.force)
    throw swegenError(
      'already_exists',
      `${taskDir} already exists (pass --force to regenerate it)`,
    );
  const git = await ensureCachedRepo(
    options.stateDir,
    pr.repo,
    options.source.fetchUrl(pr),
    [pr.baseSha, pr.headSha],
    signal,
  );
  const split = await splitPatches({
    git,
    baseSha: pr.baseSha,
    headSha: pr.headSha,
    prFiles: files,
    compat: rule.compat,
  });
  log(`${taskId}: ${split.sourceFiles.length} source files, ${split.testFiles.length} test files`);
  const evaluation = await evaluate(options, pr, issues, split);
  if (!evaluation.is_substantial && options.requireMinimumDifficulty !== false) {
    throw swegenError(
      'trivial_pr',
      `${pr.repo}#${pr.number} is not substantial: ${evaluation.reason}`,
    );
  }
  if (options.dryRun) return { status: 'previewed', taskId, taskDir, evaluation, published: false };
  signal?.throwIfAborted();
  // --force keeps the previous task aside until the new one is through, and puts it back if not.
  const aside = `${taskDir}.previous-${process.pid}-${Date.now()}`;
  if (previous) await rename(taskDir, aside);
  try {
    await writeTaskSkeleton(taskDir, skeletonInput(pr, split, evaluation));
    const validation = await completeAndValidate(options, pr, split, taskDir, git.repoPath);
    if (validation?.passed) await saveReference(options, pr, taskId, taskDir);
    signal?.throwIfAborted();
    if (previous) await rm(aside, { recursive: true, force: true });
    const base = { status: 'created' as const, taskId, taskDir, evaluation, published: false };
    return validation ? { ...base, validation } : base;
  } catch (error) {
    // A task that did not come through its validation is no task: nothing half-made stays.
    await rm(taskDir, { recursive: true, force: true });
    if (previous) await rename(aside, taskDir);
    throw error;
  }
}

function skeletonInput(
  pr: PullRequestInfo,
  split: PatchSplit,
  evaluation: PrEvaluation,
): Parameters<typeof writeTaskSkeleton>[1] {
  return {
    split,
    facts: { cloneUrl: pr.cloneUrl, headSha: pr.headSha, prNumber: pr.number },
    instruction: evaluation.instruction,
    metadata: {
      difficulty: evaluation.difficulty,
      category: evaluation.category,
      tags: evaluation.tags,
      sourceRepo: pr.repo,
      sourcePr: pr.number,
      baseSha: split.base,
      headSha: split.head,
      ...(evaluation.task_name ? { taskName: evaluation.task_name } : {}),
    },
  };
}

async function completeAndValidate(
  options: CreateTaskOptions,
  pr: PullRequestInfo,
  split: PatchSplit,
  taskDir: string,
  repoPath: string,
): Promise<TaskValidation | undefined> {
  const { validator, signal } = options;
  const validate = (dir: string): Promise<TaskValidation> =>
    validator
      ? validator(dir, signal)
      : Promise.reject(swegenError('invalid_input', 'no validator configured'));
  let last: TaskValidation | undefined;
  let fingerprint: string | undefined;
  if (options.completion) {
    const reference =
      options.useReferences === false
        ? undefined
        : await new TaskReferences(join(options.stateDir, 'task_references.json')).get(pr.repo);
    if (!options.model) throw swegenError('invalid_input', 'the completion agent needs a model');
    const outcome = await completeSkeleton({
      ...options.completion,
      model: options.model,
      taskDir,
      repoPath,
      headSha: split.head,
      validate,
      repo: pr.repo,
      prNumber: pr.number,
      testFiles: split.testFiles.map((t) => t.repoPath),
      ...(reference ? { reference } : {}),
      ...(signal ? { signal } : {}),
    });
    options.log?.(`completion agent ended${outcome.error ? `: ${outcome.error}` : ''}`);
    last = outcome.lastValidation;
    fingerprint = outcome.validatedFingerprint;
  }
  if (options.validate === false) return last;
  const unchanged = last?.passed && fingerprint === (await editableFingerprint(taskDir));
  const result = unchanged && last ? last : await validate(taskDir);
  if (!result.passed) {
    throw swegenError('validation_failed', `validation failed: ${summaryLine(result)}`, {
      taskId: result.taskId,
    });
  }
  return result;
}

async function saveReference(
  options: CreateTaskOptions,
  pr: PullRequestInfo,
  taskId: string,
  taskDir: string,
): Promise<void> {
  await new TaskReferences(join(options.stateDir, 'task_references.json')).save({
    repo: pr.repo,
    taskId,
    pr: pr.number,
    taskDir,
    dockerfile: await readFile(join(taskDir, 'environment', 'Dockerfile'), 'utf8'),
    testSh: await readFile(join(taskDir, 'tests', 'test.sh'), 'utf8'),
  });
}
