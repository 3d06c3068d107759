import { rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { swegenErrorReason } from '../errors/swegen-errors.js';
import type { GithubPrSource } from '../pr/github-pr-source.js';
import type { PullRequestInfo } from '../pr/pr-source.js';
import { GitStateStore } from '../publish/git-state-store.js';
import { resolvePublishConfig, type PublishConfig } from '../publish/publish-config.js';
import { TaskPublisher } from '../publish/task-publisher.js';
import { farmPr, type FarmCreateSettings, type PrResult } from './farm-hand.js';
import type { FarmState } from './farm-state.js';
import type { FarmLastRun, FarmRecentResult } from './farm-state.schema.js';
import { streamMergedPrs, type StreamEnd } from './pr-stream.js';
import { LocalStateStore, type StateStore } from './state-store.js';

/** Settings of `swegen farm`. */
export interface FarmOptions {
  readonly repo: string;
  readonly source: GithubPrSource;
  readonly stateDir: string;
  readonly tasksDir: string;
  readonly create: FarmCreateSettings;
  /** `changed_files` floor of the stream (default 3). */
  readonly minFiles?: number;
  readonly perPage?: number;
  readonly resumeFrom?: string;
  readonly skipTaskIds?: ReadonlySet<string>;
  /** Generate nothing and record nothing: each PR goes as far as the model's evaluation. */
  readonly dryRun?: boolean;
  /** Start from an empty state (with publishing: overwrite the state branch once). */
  readonly reset?: boolean;
  readonly publish?: PublishConfig;
  /** Stop after this many PRs (a bounded run). */
  readonly maxPrs?: number;
  /** Pause after a PR that cost a generation (not after cheap skips). */
  readonly taskDelayMs?: number;
  /** A PR whose generation takes longer is abandoned and recorded as `timeout`; no limit if absent. */
  readonly timeoutMs?: number;
  /** Checked between PRs: a signal asked the farm to stop (the current PR finishes first). */
  readonly shouldStop?: () => boolean;
  readonly log?: (line: string) => void;
  readonly now?: () => Date;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly fetch?: typeof fetch;
}

/** How a farm run ended. */
export interface FarmResult {
  readonly outcome: FarmLastRun['outcome'];
  readonly reason: string | null;
  /** The error that aborted the run (its swegen reason gives the exit status). */
  readonly error?: unknown;
  readonly prsSeen: number;
  readonly state: FarmState;
}

const CHEAP = new Set(['trivial', 'no_issue', 'no_tests', 'already_exists']);

interface Run {
  readonly options: FarmOptions;
  readonly state: FarmState;
  readonly store: StateStore;
  readonly started: Date;
  readonly recent: FarmRecentResult[];
  seen: number;
  ok: number;
  inFlight: number | null;
}

function lastRun(run: Run, outcome: FarmLastRun['outcome'], reason: string | null): FarmLastRun {
  const now = run.options.now?.() ?? new Date();
  const { state } = run;
  return {
    outcome,
    reason: reason?.slice(0, 1000) ?? null,
    started_at: run.started.toISOString(),
    ended_at: outcome === 'running' ? null : now.toISOString(),
    duration_seconds: (now.getTime() - run.started.getTime()) / 1000,
    prs_seen_this_run: run.seen,
    pr_in_flight: run.inFlight,
    last_pr_number: state.cursor.prNumber,
    last_created_at: state.cursor.createdAt,
    counters: {
      successful: state.successfulCount,
      failed: state.failedCount,
      total_processed: state.totalProcessed,
    },
    pending_retry: {
      publish_failed: [...state.publishFailed].sort((a, b) => a - b),
      claude_rate_limited: [...state.rateLimited].sort((a, b) => a - b),
    },
    recent_results: run.recent.slice(-5),
    detail: `host ${hostname()}`,
  };
}

async function stores(options: FarmOptions, stateDir: string) {
  const settings = {
    ...(options.reset ? { reset: true } : {}),
    ...(options.now ? { now: options.now } : {}),
  };
  if (!options.publish || options.dryRun)
    return { store: new LocalStateStore(options.repo, stateDir, settings) as StateStore };
  const config = resolvePublishConfig(options.publish, options.repo, stateDir);
  const publisher = new TaskPublisher(config, {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.sleep ? { sleep: options.sleep } : {}),
  });
  await publisher.preflight((line) => options.log?.(`warning: ${line}`));
  if (config.dryRun)
    return { store: new LocalStateStore(options.repo, stateDir, settings), publisher, config };
  const store = new GitStateStore(config, publisher.clone, options.repo, stateDir, settings);
  return { store, publisher, config };
}

const NO_TESTS = 'the PR touches no test file';

/** Records a merged PR the stream dropped for touching no test file (a dry run records nothing). */
function recordNoTests(run: Run, pr: PullRequestInfo): void {
  run.recent.push({ pr: pr.number, status: 'failure', category: 'no_tests', message: NO_TESTS });
  if (!run.options.dryRun)
    run.state.markProcessed(pr.number, pr.createdAt, {
      kind: 'failure',
      category: 'no_tests',
      message: NO_TESTS,
    });
  run.options.log?.(`#${pr.number} no_tests: ${NO_TESTS}`);
}

/** Records one PR's result in the state; returns the error that must stop the farm, if any. */
function record(run: Run, pr: PullRequestInfo, result: PrResult, durable: boolean): unknown {
  const { state } = run;
  const entry: FarmRecentResult = { pr: pr.number, status: result.status };
  run.recent.push(entry);
  if (run.options.dryRun) return undefined;
  switch (result.status) {
    case 'previewed':
      return undefined;
    case 'success':
      if (result.prUrl) entry.pr_url = result.prUrl;
      // A task that did not reach the dataset under --publish-dry-run is not consumed.
      if (!durable || result.published)
        state.markProcessed(pr.number, pr.createdAt, {
          kind: 'success',
          taskId: result.taskId,
          ...(result.prUrl ? { prUrl: result.prUrl } : {}),
        });
      run.ok += 1;
      return undefined;
    case 'failure':
      entry.category = result.category;
      entry.message = result.message.slice(0, 500);
      state.markProcessed(pr.number, pr.createdAt, { kind: 'failure', ...result });
      return undefined;
    case 'publish_failed':
      entry.message = result.message.slice(0, 500);
      state.markPublishFailed(pr.number);
      return result.error;
    case 'rate_limited':
      entry.message = result.message.slice(0, 500);
      state.markRateLimited(pr.number);
      return result.error;
  }
}

function progress(run: Run, pr: PullRequestInfo, result: PrResult): string {
  const minutes = ((run.options.now?.() ?? new Date()).getTime() - run.started.getTime()) / 60_000;
  const rate = minutes > 0 ? (run.seen / minutes).toFixed(1) : '-';
  const what =
    result.status === 'success'
      ? `task ${result.taskId}${result.prUrl ? ` (${result.prUrl})` : ''}`
      : result.status === 'failure'
        ? `${result.category}: ${result.message.slice(0, 120)}`
        : result.status === 'previewed'
          ? `would generate ${result.taskId}`
          : `${result.status}: ${result.message.slice(0, 160)}`;
  const s = run.state;
  return `[${run.seen}] #${pr.number} ${what} | ok ${s.successfulCount}, failed ${s.failedCount}, pending ${s.publishFailed.size + s.rateLimited.size} | ${rate} PR/min`;
}

/**
 * `swegen farm`: streams the repository's merged PRs (newest created first, resumable from the
 * state's cursor) and turns each into a task, one at a time. The state is saved after every PR
 * (with publishing: pushed to the state branch); counters are derived, never incremented. A
 * publish failure or a rate limit stops the farm with the PR left pending; a stop request ends
 * it after the current PR. `dryRun` records nothing. The last-run report is saved on every exit.
 */
export async function runFarm(options: FarmOptions): Promise<FarmResult> {
  const log = options.log ?? (() => undefined);
  const stateDir = resolve(options.stateDir);
  const { store, publisher, config } = await stores(options, stateDir);
  const state = await store.load();
  const run: Run = {
    options,
    state,
    store,
    started: options.now?.() ?? new Date(),
    recent: [],
    seen: 0,
    ok: 0,
    inFlight: null,
  };
  if (options.reset && config) log(`warning: --reset overwrites ${config.repo} farm state branch`);
  const save = async (outcome: FarmLastRun['outcome'], reason: string | null): Promise<void> => {
    if (options.dryRun) return;
    state.lastRun = lastRun(run, outcome, reason);
    state.touch();
    await store.save(state);
  };
  const end: StreamEnd = {};
  const finish = async (
    outcome: FarmLastRun['outcome'],
    reason: string | null,
    error?: unknown,
  ) => {
    run.inFlight = null;
    try {
      await save(outcome, reason);
    } catch (saveError) {
      const both = error ? `${(error as Error).message}; and ` : '';
      const message = `${both}the farm state was not saved durably (local copy: ${store.mirrorPath}): ${(saveError as Error).message}`;
      return {
        outcome: 'aborted' as const,
        reason: message,
        error: error ?? saveError,
        prsSeen: run.seen,
        state,
      };
    }
    return { outcome, reason, ...(error ? { error } : {}), prsSeen: run.seen, state };
  };
  const stream = streamMergedPrs(
    {
      source: options.source,
      repo: options.repo,
      state,
      minFiles: options.minFiles ?? 3,
      log,
      onNoTests: (pr) => recordNoTests(run, pr),
      ...(options.resumeFrom ? { resumeFrom: options.resumeFrom } : {}),
      ...(options.skipTaskIds ? { skipTaskIds: options.skipTaskIds } : {}),
      ...(options.perPage ? { perPage: options.perPage } : {}),
      ...(options.sleep ? { sleep: options.sleep } : {}),
    },
    end,
  );
  try {
    for await (const pr of stream) {
      if (options.shouldStop?.()) return await finish('interrupted', 'stopped by a signal');
      run.seen += 1;
      run.inFlight = pr.number;
      const result = await farmPr(
        {
          repo: options.repo,
          source: options.source,
          stateDir,
          tasksDir: options.tasksDir,
          create: options.create,
          ...(publisher ? { publisher } : {}),
          pendingPublish: (n) => state.publishFailed.has(n),
          dryRun: options.dryRun ?? false,
          ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
          log,
        },
        pr,
      );
      const stop = record(run, pr, result, Boolean(config && !config.dryRun));
      run.inFlight = null;
      log(progress(run, pr, result));
      if (stop) return await finish('aborted', (stop as Error).message, stop);
      await save('running', null);
      if (result.status === 'success' && result.published && config?.cleanupLocal)
        await rm(result.taskDir, { recursive: true, force: true });
      if (options.shouldStop?.()) return await finish('interrupted', 'stopped by a signal');
      if (options.maxPrs !== undefined && run.seen >= options.maxPrs)
        return await finish('completed', `stopped after ${run.seen} PRs (--max-prs)`);
      const cheap = result.status === 'failure' && CHEAP.has(result.category);
      if (options.taskDelayMs && !cheap && result.status !== 'previewed')
        await (options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms))))(
          options.taskDelayMs,
        );
    }
  } catch (error) {
    const outcome = swegenErrorReason(error) ? 'aborted' : 'crashed';
    return finish(outcome, (error as Error).message, error);
  }
  if (end.stopReason) return finish('stream_failed', end.stopReason, end.error);
  return finish('completed', null);
}
