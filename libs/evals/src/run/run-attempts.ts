import type { EvalAttempt } from '../results/eval-run.js';
import {
  pendingAttempts,
  withFinished,
  withStarted,
  type AttemptKey,
  type AttemptLedger,
} from './attempt-ledger.js';
import { runBounded } from './bounded-pool.js';

/** What `runAttempts` needs: the plan, the work, and where the ledger is kept. */
export interface RunAttemptsOptions {
  /** The ledger to go on from (an opened one: nothing in flight). */
  readonly ledger: AttemptLedger;
  readonly taskIds: readonly string[];
  /** Attempts per task. */
  readonly attempts: number;
  readonly concurrency: number;
  /** Runs one attempt on a slot (0..concurrency-1, one attempt per slot at a time). */
  readonly attempt: (key: AttemptKey, slot: number) => Promise<EvalAttempt>;
  /**
   * Keeps the ledger (written whole and atomically). Called after every change, one call at a
   * time, in the order of the changes; a change is not acted on before it is kept.
   */
  readonly save: (ledger: AttemptLedger) => Promise<void>;
  /** Told each finished attempt, once it is kept, with the ledger as it then is. */
  readonly onFinished?: (key: AttemptKey, result: EvalAttempt, ledger: AttemptLedger) => void;
  readonly signal?: AbortSignal;
}

/**
 * Runs the attempts the ledger does not hold yet, `concurrency` at once: each is kept as started
 * before it runs and as finished (with its record) after, so a kill at any moment leaves a ledger
 * from which the next run re-runs exactly the attempts in flight and never a finished one. An
 * attempt that throws (or an abort) is not recorded; the ones running are waited for, then it is
 * thrown. Resolves with the final ledger.
 */
export async function runAttempts(options: RunAttemptsOptions): Promise<AttemptLedger> {
  let current = options.ledger;
  let saved = Promise.resolve();
  const change = (update: (ledger: AttemptLedger) => AttemptLedger): Promise<AttemptLedger> => {
    current = update(current);
    const snapshot = current;
    saved = saved.then(() => options.save(snapshot));
    return saved.then(() => snapshot);
  };
  const pending = pendingAttempts(current, options.taskIds, options.attempts);
  await runBounded(
    pending,
    options.concurrency,
    async (key, slot) => {
      await change((ledger) => withStarted(ledger, key));
      const result = await options.attempt(key, slot);
      const kept = await change((ledger) => withFinished(ledger, key.taskId, result));
      options.onFinished?.(key, result, kept);
    },
    options.signal ? { signal: options.signal } : {},
  );
  return current;
}
