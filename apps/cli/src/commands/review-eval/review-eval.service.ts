import { costOf, resolveModel } from '@caravel/agent';
import { createChatModel, MAX_CLIENT_RETRIES } from '@caravel/agent/langchain';
import type { EnvSource } from '@caravel/config';
import { FindingRepository, openDatabase } from '@caravel/db';
import { AppError } from '@caravel/errors';
import {
  reviewEvalTable,
  reviewEvalTotals,
  runBounded,
  type ReviewEvalCase,
  type ReviewEvalResult,
  type ReviewSeverity,
} from '@caravel/evals';
import { modelCredentialsOf, modelSettingsSchema } from '@caravel/integrations';
import { randomUUID } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeAtomically } from '../eval/ledger-file.js';
import { checkModel } from '../preflight.js';
import { reviewCase, type CaseOutcome, type CaseRunner } from './review-case.js';
import {
  assertSandboxAvailable,
  CaseRepositories,
  sandboxProviderFor,
  type CaseCommits,
  type ReviewSandboxKind,
} from './review-checkouts.js';
import { modelJudge } from './review-judge.js';
import { ReviewRunRecorder, type ReviewRecordStores } from './review-eval-records.js';
import type { LoadedSet } from './review-set-files.js';
import { REVIEW_EVAL_FILE } from './review-eval-file.js';

/** Longest single model call of a review (as the reviewer service has it). */
const MODEL_TIMEOUT_MS = 180_000;

/** The options of `caravel review-eval`. */
export interface ReviewEvalOptions {
  readonly set: LoadedSet;
  /** The reviewer's model reference (`--model`, else REVIEWER_MODEL, else CARAVEL_MODEL). */
  readonly model: string;
  /** Where the model came from, for messages (`--model`, `REVIEWER_MODEL`...). */
  readonly modelOrigin: string;
  /** A judge model: asked about each pair whose places match (default: none, places decide). */
  readonly judge?: string;
  readonly concurrency: number;
  readonly tolerance: number;
  readonly minSeverity: ReviewSeverity;
  readonly sandbox: ReviewSandboxKind;
  /** The output folder (default `evals/review-<set>--<model>`). */
  readonly out?: string;
  readonly env: EnvSource;
  readonly write: (line: string) => void;
  readonly signal?: AbortSignal;
  readonly now?: () => Date;
  /** Where the run and each case are recorded as they finish, besides the files. */
  readonly records?: ReviewRecordStores;
  /** The configuration's name it is recorded under (default: the model reference). */
  readonly config?: string;
  /**
   * The run's id (default: a new one). A run recorded under it already is resumed: the cases it
   * scored are not reviewed again.
   */
  readonly runId?: string;
  /** The scheduled suite and night that started it. */
  readonly schedule?: { id: string; slot: Date };
  /** The review style the reviewer gets (`eval gate-style`: the style in force, or a draft). */
  readonly reviewStyle?: string | null;
}

/** What a review eval wrote. */
export interface ReviewEvalReport {
  readonly result: ReviewEvalResult;
  /** The result as a terminal table (`reviewEvalTable`). */
  readonly table: string;
  readonly out: string;
  readonly written: string[];
  /** Stopped by the signal: only the cases finished before it are in the result. */
  readonly stopped: boolean;
}

/** A model reference as a folder name: `scripted:evals/r.yaml` → `scripted-evals-r.yaml`. */
export function slugOf(model: string): string {
  return (
    model
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 80) || 'model'
  );
}

/** The models a run makes: the keys parsed once, each reference checked before anything runs. */
function modelsOf(options: ReviewEvalOptions) {
  const parsed = modelSettingsSchema.safeParse(options.env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AppError(
      'CONFIG_INVALID',
      `${issue?.path.join('.') ?? 'the model settings'}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const settings = {
    credentials: modelCredentialsOf(parsed.data),
    fileRoot: options.env['CARAVEL_FILE_ROOT'] ? parsed.data.CARAVEL_FILE_ROOT : process.cwd(),
  };
  const make = (spec: string, origin: string) => {
    checkModel(spec, origin, settings);
    const resolved = resolveModel({ team: { model: spec } });
    return {
      entry: resolved.entry,
      create: () =>
        createChatModel(resolved, settings.credentials, {
          timeoutMs: MODEL_TIMEOUT_MS,
          maxRetries: MAX_CLIENT_RETRIES,
          fileRoot: settings.fileRoot,
        }),
    };
  };
  return {
    reviewer: make(options.model, options.modelOrigin),
    judge: options.judge ? make(options.judge, '--judge') : null,
  };
}

function progressLine(done: number, total: number, record: ReviewEvalCase): string {
  const head = `[${done}/${total}] ${record.id}:`;
  if (!record.score) return `${head} not reviewed: ${record.error ?? 'unknown error'}`;
  const { found, matched, expected } = record.score;
  return (
    `${head} ${found} finding(s), ${matched}/${expected} defect(s) found ` +
    `(${record.modelCalls} calls, ${(record.wallMs / 1000).toFixed(1)} s)`
  );
}

async function writeOutputs(
  out: string,
  result: ReviewEvalResult,
  outcomes: ReadonlyMap<string, CaseOutcome>,
): Promise<string[]> {
  await mkdir(join(out, 'cases'), { recursive: true });
  const written: string[] = [];
  for (const [id, outcome] of outcomes) {
    const file = join(out, 'cases', `${id}.json`);
    await writeAtomically(file, `${JSON.stringify(outcome.transcript, null, 2)}\n`);
  }
  const file = join(out, REVIEW_EVAL_FILE);
  await writeAtomically(file, `${JSON.stringify(result, null, 2)}\n`);
  written.push(file);
  if (outcomes.size > 0) written.push(join(out, 'cases'));
  return written;
}

/**
 * `caravel review-eval`: every case of a labelled set reviewed by Caravel's reviewer (its own
 * review run, on a fresh ledger in an in-memory database, GitHub kept in memory), `concurrency`
 * at once, each in a sandbox of its own; its findings scored against the case's defects. Every
 * case's commits are settled before any model is called, so a bad ref or a patch that does not
 * apply stops the run at once. Writes `review-eval.json` and `cases/<id>.json` (the reviewer's
 * conversation and what it would have posted).
 */
export async function runReviewEval(options: ReviewEvalOptions): Promise<ReviewEvalReport> {
  const { set } = options;
  const models = modelsOf(options);
  assertSandboxAvailable(options.sandbox, options.env['PATH']);
  const out = resolve(options.out ?? join('evals', `review-${set.name}--${slugOf(options.model)}`));
  const runId = options.runId ?? randomUUID();
  const createdAt = options.now?.() ?? new Date();
  const recorder = options.records
    ? await ReviewRunRecorder.start(
        options.records,
        {
          runId,
          set: set.name,
          config: options.config ?? options.model,
          model: options.model,
          judge: options.judge ?? null,
          tolerance: options.tolerance,
          minSeverity: options.minSeverity,
          outDir: out,
          createdAt,
          ...(options.schedule ? { schedule: options.schedule } : {}),
        },
        options.write,
      )
    : undefined;
  const reviewed = recorder?.reviewed ?? new Map<string, ReviewEvalCase>();
  const scratch = await mkdtemp(join(tmpdir(), 'caravel-review-eval-'));
  const outcomes = new Map<string, CaseOutcome>();
  let stopped = false;
  try {
    await chmod(scratch, 0o755);
    const repositories = new CaseRepositories(join(scratch, 'git'));
    const commits: CaseCommits[] = [];
    for (const c of set.cases) commits.push(await repositories.commitsOf(c));
    const sandboxRoot = join(scratch, 'sandboxes');
    await mkdir(sandboxRoot, { mode: 0o755 });
    const database = await openDatabase({ url: 'pglite:memory' });
    try {
      const { reviewer, judge } = models;
      const runner: CaseRunner = {
        findings: new FindingRepository(database.db),
        provider: sandboxProviderFor(options.sandbox, sandboxRoot),
        sandboxRoot,
        model: reviewer.create,
        priceOf: (usage) => costOf(reviewer.entry, usage).totalUsd,
        judge: judge ? () => modelJudge(judge.create()) : null,
        match: { tolerance: options.tolerance, minSeverity: options.minSeverity },
        reviewStyle: options.reviewStyle ?? null,
      };
      const indexes = set.cases.flatMap((c, i) => (reviewed.has(c.id) ? [] : [i]));
      await runBounded(
        indexes,
        options.concurrency,
        async (i) => {
          const c = set.cases[i] as LoadedSet['cases'][number];
          const outcome = await reviewCase(runner, c, i, commits[i] as CaseCommits);
          outcomes.set(c.id, outcome);
          if (outcome.record.score) recorder?.record(outcome.record);
          options.write(
            progressLine(reviewed.size + outcomes.size, set.cases.length, outcome.record),
          );
        },
        options.signal ? { signal: options.signal } : {},
      ).catch((error: unknown) => {
        if (!options.signal?.aborted) throw error;
        stopped = true;
      });
    } finally {
      await database.close();
    }
  } finally {
    await recorder?.settle();
    await rm(scratch, { recursive: true, force: true });
  }
  const cases = set.cases.flatMap((c) => {
    const record = outcomes.get(c.id)?.record ?? reviewed.get(c.id);
    return record ? [record] : [];
  });
  const result: ReviewEvalResult = {
    version: 1,
    runId,
    config: options.config ?? options.model,
    set: set.name,
    model: options.model,
    judge: options.judge ?? null,
    tolerance: options.tolerance,
    minSeverity: options.minSeverity,
    createdAt: createdAt.toISOString(),
    cases,
    totals: reviewEvalTotals(cases),
  };
  const written = await writeOutputs(out, result, outcomes);
  await recorder?.finish(cases, stopped);
  return { result, table: reviewEvalTable(result), out, written, stopped };
}
