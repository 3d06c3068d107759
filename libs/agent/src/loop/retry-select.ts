import type { ModelStats } from './limit-guard.js';

/** What one attempt of a retry loop produced. `T` is its trajectory (usually a `.traj`). */
export interface AttemptResult<T> {
  exitStatus: string;
  /** The patch, or `null` when the attempt submitted nothing. */
  submission: string | null;
  stats: ModelStats;
  trajectory: T;
}

/** An attempt as kept in the result: every attempt is recorded, winner or not. */
export interface RecordedAttempt<T> extends AttemptResult<T> {
  index: number;
  /** The adjusted score (score strategy only). */
  score: number | null;
}

/** Scores an attempt (e.g. a reviewer model); `null` or a non-finite number means no valid score. */
export type AttemptScorer<T> = (attempt: RecordedAttempt<T>) => Promise<number | null>;

/** Picks one of the candidates by position (e.g. a chooser model); anything invalid picks the first. */
export type AttemptChooser<T> = (
  candidates: readonly RecordedAttempt<T>[],
) => Promise<number | null>;

/** How the winner is picked. */
export type SelectionStrategy<T> =
  | { kind: 'score'; score: AttemptScorer<T>; failurePenalty?: number }
  | { kind: 'chooser'; choose: AttemptChooser<T> };

/** The outcome of a selection. */
export interface Selection<T> {
  /** Index of the winning attempt, `null` when every attempt failed to submit anything. */
  winnerIndex: number | null;
  outcome: 'scored' | 'chosen' | 'single_candidate' | 'all_failed';
  /** Whether the top score was shared (broken by fewer API calls, then the earlier attempt). */
  tie: boolean;
  /** The winner's status; with no winner, the last attempt's status. */
  exitStatus: string;
  submission: string | null;
  attempts: RecordedAttempt<T>[];
  /** Totals across all attempts (a retry loop pays for every attempt). */
  totalStats: ModelStats;
}

/** SWE-agent's score for an attempt without a valid review. */
export const INVALID_SCORE = -100;

function hasSubmission<T>(attempt: AttemptResult<T>): boolean {
  return attempt.submission !== null && attempt.submission.trim() !== '';
}

/** Sums the stats of all attempts. */
export function sumStats(stats: readonly ModelStats[]): ModelStats {
  return stats.reduce(
    (sum, s) => ({
      instanceCost: sum.instanceCost + s.instanceCost,
      tokensSent: sum.tokensSent + s.tokensSent,
      tokensReceived: sum.tokensReceived + s.tokensReceived,
      apiCalls: sum.apiCalls + s.apiCalls,
    }),
    { instanceCost: 0, tokensSent: 0, tokensReceived: 0, apiCalls: 0 },
  );
}

/**
 * The attempt's score after adjustment: an invalid score counts as {@link INVALID_SCORE}, and
 * an attempt that did not end exactly `submitted` loses `failurePenalty`.
 */
export function adjustScore(raw: number | null, exitStatus: string, failurePenalty = 0): number {
  const base = raw !== null && Number.isFinite(raw) ? raw : INVALID_SCORE;
  return exitStatus === 'submitted' ? base : base - failurePenalty;
}

function conclude<T>(
  attempts: RecordedAttempt<T>[],
  winner: RecordedAttempt<T> | null,
  outcome: Selection<T>['outcome'],
  tie = false,
): Selection<T> {
  const last = attempts[attempts.length - 1];
  return {
    winnerIndex: winner?.index ?? null,
    outcome: winner === null ? 'all_failed' : outcome,
    tie,
    exitStatus: winner?.exitStatus ?? last?.exitStatus ?? 'exit_error',
    submission: winner?.submission ?? null,
    attempts,
    totalStats: sumStats(attempts.map((a) => a.stats)),
  };
}

/**
 * Picks the highest-scored attempt among those that submitted something. Ties go to the
 * attempt with fewer API calls, then to the earlier one. With no submission anywhere the
 * outcome is `all_failed` and there is no winner.
 */
export function selectByScore<T>(attempts: RecordedAttempt<T>[]): Selection<T> {
  const eligible = attempts.filter(hasSubmission);
  const best = Math.max(...eligible.map((a) => a.score ?? INVALID_SCORE));
  const top = eligible.filter((a) => (a.score ?? INVALID_SCORE) === best);
  const winner =
    [...top].sort((a, b) => a.stats.apiCalls - b.stats.apiCalls || a.index - b.index)[0] ?? null;
  return conclude(attempts, winner, 'scored', top.length > 1);
}

/**
 * Asks the chooser among the attempts that submitted something; when at least two ended
 * exactly `submitted`, only those are candidates (SWE-agent's rule). A single candidate wins
 * without asking; an invalid choice picks the first candidate; no candidate is `all_failed`.
 */
export async function selectByChooser<T>(
  attempts: RecordedAttempt<T>[],
  choose: AttemptChooser<T>,
): Promise<Selection<T>> {
  const submitted = attempts.filter(hasSubmission);
  const clean = submitted.filter((a) => a.exitStatus === 'submitted');
  const candidates = clean.length >= 2 ? clean : submitted;
  if (candidates.length <= 1) return conclude(attempts, candidates[0] ?? null, 'single_candidate');
  const picked = await choose(candidates);
  const valid =
    picked !== null && Number.isInteger(picked) && picked >= 0 && picked < candidates.length;
  return conclude(attempts, candidates[valid ? picked : 0] ?? null, 'chosen');
}
