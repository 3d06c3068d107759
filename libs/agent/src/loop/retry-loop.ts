import { AppError } from '@caravel/errors';
import {
  adjustScore,
  selectByChooser,
  selectByScore,
  type AttemptResult,
  type RecordedAttempt,
  type Selection,
  type SelectionStrategy,
} from './retry-select.js';

/** Limits of a retry loop. `0` disables the budget. */
export interface RetryLoopConfig {
  maxAttempts: number;
  /** Dollars for all attempts together; each attempt is capped at what remains. */
  budgetUsd: number;
  /** Do not start another attempt with less than this left. */
  minBudgetForNewAttempt: number;
  /** Score strategy: stop once an attempt that ended `submitted` scores at least this. */
  acceptScore?: number;
}

/** What the loop needs from the runner. */
export interface RetryLoopDeps<T> {
  /** Runs attempt `index` in a fresh environment, with its cost capped at `budgetUsd` (`null`: no cap). */
  runAttempt(index: number, budgetUsd: number | null): Promise<AttemptResult<T>>;
  strategy: SelectionStrategy<T>;
}

function validate(config: RetryLoopConfig): void {
  if (!Number.isInteger(config.maxAttempts) || config.maxAttempts < 1) {
    throw new AppError(
      'CONFIG_INVALID',
      `maxAttempts must be a positive integer, got ${config.maxAttempts}`,
    );
  }
  if (config.budgetUsd < 0 || config.minBudgetForNewAttempt < 0) {
    throw new AppError('CONFIG_INVALID', 'Retry budgets must not be negative');
  }
}

function remainingBudget(config: RetryLoopConfig, spent: number): number | null {
  return config.budgetUsd > 0 ? Math.max(0, config.budgetUsd - spent) : null;
}

function accepted<T>(config: RetryLoopConfig, attempt: RecordedAttempt<T>): boolean {
  const { acceptScore } = config;
  return (
    acceptScore !== undefined &&
    attempt.exitStatus === 'submitted' &&
    (attempt.score ?? -Infinity) >= acceptScore
  );
}

/**
 * Runs attempts one after another (SWE-agent's RetryAgent) until the attempt limit, the budget,
 * or (score strategy) an accepted score, then selects the winner. Every attempt, winner or not,
 * is recorded in the result. The first attempt always runs.
 */
export async function runRetryLoop<T>(
  config: RetryLoopConfig,
  deps: RetryLoopDeps<T>,
): Promise<Selection<T>> {
  validate(config);
  const attempts: RecordedAttempt<T>[] = [];
  let spent = 0;
  for (let index = 0; index < config.maxAttempts; index += 1) {
    const remaining = remainingBudget(config, spent);
    if (
      index > 0 &&
      remaining !== null &&
      remaining < Math.max(config.minBudgetForNewAttempt, Number.EPSILON)
    )
      break;
    const result = await deps.runAttempt(index, remaining);
    spent += result.stats.instanceCost;
    const attempt: RecordedAttempt<T> = { ...result, index, score: null };
    if (deps.strategy.kind === 'score') {
      const raw = await deps.strategy.score(attempt);
      attempt.score = adjustScore(raw, attempt.exitStatus, deps.strategy.failurePenalty);
    }
    attempts.push(attempt);
    if (accepted(config, attempt)) break;
  }
  return deps.strategy.kind === 'score'
    ? selectByScore(attempts)
    : selectByChooser(attempts, deps.strategy.choose);
}
