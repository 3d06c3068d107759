import type { EnvSource } from '@caravel/config';
import type { EvalRunRepository } from '@caravel/db';
import {
  evalRunOfLedger,
  openLedger,
  pendingAttempts,
  predictionsOf,
  resultsReportOf,
  runAttempts,
  type AttemptKey,
  type EvalAttempt,
  type EvalRun,
} from '@caravel/evals';
import type { BuildEgressOptions } from '@caravel/swegen';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { embeddedConfig } from '../embedded-boot.js';
import { runAttempt } from './eval-attempt.js';
import { EVAL_RUN_FILE } from './eval-compare.command.js';
import type { EvalConfig } from './eval-config.js';
import { attemptLine } from './eval-progress.js';
import { RunRecorder } from './eval-records.js';
import type { Suite, SuiteTask } from './eval-suite.js';
import { LEDGER_FILE, readLedger, writeAtomically } from './ledger-file.js';
import { TaskEnvironments, clonesFor } from './task-environments.js';

/** The options of `caravel eval run`. */
export interface EvalRunOptions {
  /** The suite, read by `readSuite`. */
  readonly suite: Suite;
  /** The configuration, resolved by `resolveEvalConfig`. */
  readonly config: EvalConfig;
  readonly attempts: number;
  readonly concurrency: number;
  /** The run's folder (default `evals/<suite>--<config>`). */
  readonly out?: string;
  readonly repoPath?: string;
  /** The swegen state folder whose repository cache holds the tasks' clones (default .swegen). */
  readonly stateDir?: string;
  /** Keep the runs' platform data here, one folder per concurrent slot (default: temporary). */
  readonly dataDir?: string;
  readonly env: EnvSource;
  /** Where the run and its attempts are recorded as they finish, besides the files. */
  readonly records?: EvalRunRepository;
  readonly write: (line: string) => void;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  /** The id a new run gets (default: a fresh one); a run resumed from its ledger keeps its own. */
  readonly runId?: string;
  /** The scheduled suite and night that started it (recorded with the run). */
  readonly schedule?: { readonly id: string; readonly slot: Date };
}

/** What a finished `eval run` wrote. */
export interface EvalRunReport {
  readonly run: EvalRun;
  readonly out: string;
  readonly written: string[];
}

interface RunContext {
  readonly options: EvalRunOptions;
  readonly suite: Suite;
  readonly config: EvalConfig;
  readonly scratch: string;
  readonly dataDir: string;
  readonly out: string;
  readonly environments: TaskEnvironments;
  readonly env: EnvSource;
}

/**
 * The environment every run of the configuration gets: the platform's warnings off (a line per
 * boot would bury the progress; LOG_LEVEL set in either turns them back on), then the process's,
 * then the configuration's settings.
 */
function runEnvironment(config: EvalConfig, env: EnvSource): EnvSource {
  return { LOG_LEVEL: 'error', ...env, ...config.env };
}

/**
 * The model and the sandbox are checked once, before any task is built or attempted. Returns
 * what the tasks' build steps may reach: the agent sandboxes' egress allowlist and mirrors
 * (`SANDBOX_EGRESS_ALLOWLIST`, `SANDBOX_EGRESS_MIRRORS`), through a proxy of the build's own.
 */
async function preflight(config: EvalConfig, env: EnvSource): Promise<BuildEgressOptions> {
  const embedded = await embeddedConfig(
    env,
    { port: 0, forRun: true, model: { spec: config.model, origin: `--config ${config.name}` } },
    () => undefined,
  );
  const { allowlist, mirrors } = embedded.sandboxBroker.egress;
  return { allowlist, upstreamOverrides: mirrors };
}

async function attemptFor(
  ctx: RunContext,
  task: SuiteTask,
  key: AttemptKey,
  slot: number,
): Promise<EvalAttempt> {
  const built = await ctx.environments.for(task);
  const keepDir = join(ctx.out, 'attempts', task.taskId, String(key.attempt));
  if ('error' in built) {
    await rm(keepDir, { recursive: true, force: true });
    return {
      attempt: key.attempt,
      resolved: false,
      exitStatus: 'exit_environment_error',
      costUsd: 0,
      modelCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      wallMs: 0,
      patch: '',
      error: built.error,
    };
  }
  return runAttempt({
    task,
    attempt: key.attempt,
    environment: built.environment,
    attemptDir: join(ctx.scratch, 'attempts', `${task.taskId}-${key.attempt}`),
    keepDir,
    dataDir: join(ctx.dataDir, `slot-${slot}`),
    config: ctx.config,
    env: ctx.env,
    ...(ctx.options.signal ? { signal: ctx.options.signal } : {}),
  });
}

async function writeOutputs(out: string, run: EvalRun): Promise<string[]> {
  const files: [string, unknown][] = [
    [EVAL_RUN_FILE, run],
    ['preds.json', predictionsOf(run)],
    ['results.json', resultsReportOf(run)],
  ];
  const written: string[] = [];
  for (const [name, value] of files) {
    await writeAtomically(join(out, name), `${JSON.stringify(value, null, 2)}\n`);
    written.push(join(out, name));
  }
  return written;
}

/**
 * `caravel eval run`: every task of a suite, `attempts` times, `concurrency` attempts at once,
 * each through `caravel run`'s path and graded by the task's tests; resumable from the attempts
 * ledger in the output folder (finished attempts are never run again; those a kill interrupted
 * are). Writes caravel-eval.json, preds.json and results.json when every attempt is done.
 */
export async function runEvalSuite(options: EvalRunOptions): Promise<EvalRunReport> {
  const { suite, config } = options;
  const clones = await clonesFor(suite.tasks, {
    ...(options.repoPath ? { repoPath: options.repoPath } : {}),
    stateDir: options.stateDir ?? '.swegen',
  });
  const env = runEnvironment(config, options.env);
  const egress = await preflight(config, env);
  const out = resolve(options.out ?? join('evals', `${suite.name}--${config.name}`));
  await mkdir(out, { recursive: true });
  const opened = openLedger(await readLedger(out), {
    runId: options.runId ?? randomUUID(),
    suite: suite.name,
    config: config.name,
    model: config.model,
    createdAt: (options.now?.() ?? new Date()).toISOString(),
  });
  const taskIds = suite.tasks.map((t) => t.taskId);
  const pending = pendingAttempts(opened.ledger, taskIds, options.attempts);
  if (opened.resumed)
    options.write(
      `resuming ${join(out, LEDGER_FILE)}: ${opened.ledger.finished.length} attempt(s) recorded, ` +
        `${opened.interrupted.length} interrupted (run again), ${pending.length} to run`,
    );
  const recorder = options.records
    ? await RunRecorder.start(
        options.records,
        opened.ledger,
        {
          settings: config.env,
          attemptsPerTask: options.attempts,
          outDir: out,
          ...(options.schedule ? { schedule: options.schedule } : {}),
        },
        options.write,
      )
    : undefined;
  const scratch = await mkdtemp(join(tmpdir(), 'caravel-eval-'));
  let ledger = opened.ledger;
  try {
    await chmod(scratch, 0o755);
    const remaining = new Map<string, number>();
    for (const key of pending) remaining.set(key.taskId, (remaining.get(key.taskId) ?? 0) + 1);
    const ctx: RunContext = {
      options,
      env,
      suite,
      config,
      scratch,
      out,
      dataDir: options.dataDir ? resolve(options.dataDir) : join(scratch, 'platform'),
      environments: new TaskEnvironments(join(scratch, 'build'), clones, remaining, {
        egress,
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    };
    const total = taskIds.length * options.attempts;
    const ledgerFile = join(out, LEDGER_FILE);
    ledger = await runAttempts({
      ledger,
      taskIds,
      attempts: options.attempts,
      concurrency: options.concurrency,
      attempt: async (key, slot) => {
        const task = suite.tasks.find((t) => t.taskId === key.taskId) as SuiteTask;
        const result = await attemptFor(ctx, task, key, slot);
        await ctx.environments.release(task);
        return result;
      },
      save: (kept) => writeAtomically(ledgerFile, `${JSON.stringify(kept, null, 2)}\n`),
      onFinished: (key, result, kept) => {
        recorder?.record(key.taskId, result);
        options.write(attemptLine(key.taskId, result, kept, total));
      },
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } finally {
    await recorder?.settle();
    await rm(scratch, { recursive: true, force: true });
  }
  const run = evalRunOfLedger(ledger, taskIds);
  const written = await writeOutputs(out, run);
  await recorder?.finish(ledger);
  return { run, out, written };
}
