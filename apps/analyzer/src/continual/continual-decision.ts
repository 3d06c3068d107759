import type { ReviewStyleRow } from '@caravel/db';
import type { WeighedOutcome } from './finding-reactions.js';

/** Whether a continual run goes to the model, and why not when it does not. */
export type ContinualDecision =
  | { run: true; current: ReviewStyleRow; outcomes: WeighedOutcome[] }
  | { run: false; reason: 'no_bootstrap' | 'no_outcomes' };

/**
 * A continual run learns only from outcomes: before any bootstrap there is no style to sharpen,
 * and with no finding fixed, dismissed, replied to or reacted to (👍/👎) since the latest version
 * there is nothing to learn, so nothing is asked of the model and nothing is saved (a style never degrades on its own).
 */
export function decideContinual(
  current: ReviewStyleRow | null,
  outcomes: readonly WeighedOutcome[],
): ContinualDecision {
  if (!current) return { run: false, reason: 'no_bootstrap' };
  if (outcomes.length === 0) return { run: false, reason: 'no_outcomes' };
  return { run: true, current, outcomes: [...outcomes] };
}
