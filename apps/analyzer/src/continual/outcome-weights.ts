import type { WeighedOutcome } from './finding-reactions.js';

/** What one finding's outcome says about the pattern it followed. */
export type FindingVerdict = 'confirmed' | 'rejected' | 'mixed' | 'unclear';

/** What the outcomes say about a category of findings: say more of it, less, or keep it. */
export interface CategoryWeight {
  category: string;
  verdict: 'promote' | 'demote' | 'hold';
  confirmed: number;
  rejected: number;
}

const sign = (n: number): number => (n > 0 ? 1 : n < 0 ? -1 : 0);

/**
 * One finding's verdict: a fix by a commit confirms it and a dismissal rejects it; more 👍 than
 * 👎 confirms, more 👎 than 👍 rejects. When the two disagree (fixed, yet people 👎 it) the
 * verdict is `mixed`; replies alone, or code removed, say nothing either way (`unclear`): the
 * model reads them.
 */
export function findingVerdict(outcome: WeighedOutcome): FindingVerdict {
  const kind = (outcome.resolution as { kind?: string } | null)?.kind;
  const closed = kind === 'fixed_by_commit' ? 1 : kind === 'dismissed' ? -1 : 0;
  const reacted = sign((outcome.reactions?.up.length ?? 0) - (outcome.reactions?.down.length ?? 0));
  if (closed !== 0 && reacted !== 0 && closed !== reacted) return 'mixed';
  const total = closed || reacted;
  return total > 0 ? 'confirmed' : total < 0 ? 'rejected' : 'unclear';
}

/**
 * The promote/demote decision per category: a category whose findings were confirmed more often
 * than rejected is promoted, one rejected more often demoted, and an even or empty count holds.
 * Categories are listed by how much was said about them, then by name.
 */
export function weighOutcomes(outcomes: readonly WeighedOutcome[]): CategoryWeight[] {
  const counts = new Map<string, { confirmed: number; rejected: number }>();
  for (const outcome of outcomes) {
    const count = counts.get(outcome.category) ?? { confirmed: 0, rejected: 0 };
    const verdict = findingVerdict(outcome);
    if (verdict === 'confirmed') count.confirmed += 1;
    if (verdict === 'rejected') count.rejected += 1;
    counts.set(outcome.category, count);
  }
  return [...counts.entries()]
    .map(([category, { confirmed, rejected }]): CategoryWeight => {
      const verdict = confirmed > rejected ? 'promote' : rejected > confirmed ? 'demote' : 'hold';
      return { category, verdict, confirmed, rejected };
    })
    .sort(
      (a, b) =>
        b.confirmed + b.rejected - (a.confirmed + a.rejected) ||
        a.category.localeCompare(b.category),
    );
}
