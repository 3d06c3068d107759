import { AppError } from '@caravel/errors';
import { z } from 'zod';
import { evalAttemptSchema, type EvalAttempt, type EvalRun } from '../results/eval-run.js';

/** One attempt of one task: what the ledger and the scheduler count. */
export const attemptKeySchema = z.object({
  taskId: z.string().min(1),
  attempt: z.number().int().positive(),
});
export type AttemptKey = z.output<typeof attemptKeySchema>;

/** What a suite run is: a ledger only resumes the same suite, configuration and model. */
export interface LedgerIdentity {
  runId: string;
  suite: string;
  config: string;
  model: string;
  createdAt: string;
}

/**
 * The attempts ledger of `caravel eval run` (`attempts.json` in the output folder), rewritten
 * whole and atomically as each attempt starts and finishes. `finished` is the record; `started`
 * lists the attempts in flight, so after a kill they are known, re-run, and never counted.
 */
export const attemptLedgerSchema = z.object({
  version: z.literal(1),
  runId: z.string().min(1),
  suite: z.string().min(1),
  config: z.string().min(1),
  model: z.string().min(1),
  createdAt: z.string().min(1),
  started: z.array(attemptKeySchema),
  finished: z.array(z.object({ taskId: z.string().min(1), result: evalAttemptSchema })),
});
export type AttemptLedger = z.output<typeof attemptLedgerSchema>;

type Finished = AttemptLedger['finished'][number];

const same = (a: AttemptKey, b: AttemptKey) => a.taskId === b.taskId && a.attempt === b.attempt;
const keyOf = (done: Finished): AttemptKey => ({
  taskId: done.taskId,
  attempt: done.result.attempt,
});
const isFinished = (ledger: AttemptLedger, key: AttemptKey) =>
  ledger.finished.some((done) => same(keyOf(done), key));

/** What resuming found: the ledger to go on with and the attempts a kill left unfinished. */
export interface OpenedLedger {
  ledger: AttemptLedger;
  /** Attempts that had started but not finished (re-run; nothing of them was kept). */
  interrupted: AttemptKey[];
  resumed: boolean;
}

/**
 * A new ledger, or the existing one of the same suite, configuration and model with its
 * in-flight attempts cleared (they are re-run). A ledger of another run is refused (CONFLICT):
 * mixing two configurations' attempts would make the record a lie.
 */
export function openLedger(existing: AttemptLedger | undefined, run: LedgerIdentity): OpenedLedger {
  if (!existing)
    return {
      ledger: { version: 1, ...run, started: [], finished: [] },
      interrupted: [],
      resumed: false,
    };
  for (const field of ['suite', 'config', 'model'] as const) {
    if (existing[field] !== run[field])
      throw new AppError(
        'CONFLICT',
        `the output folder holds a run of ${field} '${existing[field]}', not '${run[field]}': use another --out, or remove it to start over`,
      );
  }
  const interrupted = existing.started.filter((key) => !isFinished(existing, key));
  return { ledger: { ...existing, started: [] }, interrupted, resumed: true };
}

/**
 * The attempts still to run, attempt by attempt across the suite (every task's first attempt,
 * then every task's second...), so a partial run already covers the whole suite. A finished
 * attempt is never in it.
 */
export function pendingAttempts(
  ledger: AttemptLedger,
  taskIds: readonly string[],
  attempts: number,
): AttemptKey[] {
  const pending: AttemptKey[] = [];
  for (let attempt = 1; attempt <= attempts; attempt += 1)
    for (const taskId of taskIds)
      if (!isFinished(ledger, { taskId, attempt })) pending.push({ taskId, attempt });
  return pending;
}

/** The ledger with an attempt in flight. */
export function withStarted(ledger: AttemptLedger, key: AttemptKey): AttemptLedger {
  return { ...ledger, started: [...ledger.started.filter((k) => !same(k, key)), key] };
}

/** The ledger with an attempt finished (no longer in flight); a second finish is refused. */
export function withFinished(
  ledger: AttemptLedger,
  taskId: string,
  result: EvalAttempt,
): AttemptLedger {
  const key = { taskId, attempt: result.attempt };
  if (isFinished(ledger, key))
    throw new AppError('CONFLICT', `attempt ${result.attempt} of ${taskId} is already recorded`);
  return {
    ...ledger,
    started: ledger.started.filter((k) => !same(k, key)),
    finished: [...ledger.finished, { taskId, result }],
  };
}

/**
 * The run record (`caravel-eval.json`) of the ledger's finished attempts over the given tasks, in
 * the suite's order with attempts in order; a task with no finished attempt is left out.
 */
export function evalRunOfLedger(ledger: AttemptLedger, taskIds: readonly string[]): EvalRun {
  const tasks = taskIds.flatMap((taskId) => {
    const attempts = ledger.finished
      .filter((done) => done.taskId === taskId)
      .map((done) => done.result)
      .sort((a, b) => a.attempt - b.attempt);
    return attempts.length > 0 ? [{ taskId, attempts }] : [];
  });
  const { runId, suite, config, model, createdAt } = ledger;
  return { runId, suite, config, model, createdAt, tasks };
}
