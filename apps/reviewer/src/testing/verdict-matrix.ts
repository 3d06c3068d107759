import type { ReviewEvent } from '@caravel/findings';
import { repositoryMatcher } from '../services/review-runs.options.js';

/** One combination of what gates the verdict. */
export interface VerdictCase {
  /** The request explicitly asked for a verdict. */
  asked: boolean;
  /** A finding is open. */
  open: boolean;
  /** The pull request is Caravel's own. */
  own: boolean;
  /** The pull request's repository is in `REVIEWER_APPROVE_CLEAN_REPOS`. */
  approves: boolean;
  /** A Caravel approval of an earlier head stands on the pull request. */
  stale: boolean;
}

/** All 32 combinations. */
export const VERDICT_CASES: VerdictCase[] = Array.from({ length: 32 }, (_, mask) => {
  const bit = (n: number): boolean => (mask & n) > 0;
  return { asked: bit(1), open: bit(2), own: bit(4), approves: bit(8), stale: bit(16) };
});

/**
 * What the rules (seed 000) say, written out case by case: Caravel's own pull request gets a
 * comment; open findings get changes requested only when asked; a clean ledger an approval only
 * where the repository enables it. `posted` is false when a comment with nothing new would only
 * repeat a Caravel review already there (the stale approval); `dismissed` when findings are open
 * over a stale approval.
 */
export function expectedVerdict(c: VerdictCase): {
  event: ReviewEvent;
  posted: boolean;
  dismissed: boolean;
} {
  const event: ReviewEvent = c.own
    ? 'COMMENT'
    : c.open
      ? c.asked
        ? 'REQUEST_CHANGES'
        : 'COMMENT'
      : c.approves
        ? 'APPROVE'
        : 'COMMENT';
  return {
    event,
    posted: !(event === 'COMMENT' && !c.open && c.stale),
    dismissed: c.stale && c.open,
  };
}

/**
 * Whether a clean review of `repository` approves, as the review runs decide it: through the
 * repository list (`REVIEWER_APPROVE_CLEAN_REPOS`, `repositoryMatcher`) of the case — the
 * repository listed, by name or by owner, when it `approves`; only its neighbours (the owner's
 * other repositories, another owner's of the same name) when it does not.
 */
export function approvesCleanReview(
  c: VerdictCase,
  mask: number,
  repository: { owner: string; name: string },
): boolean {
  const { owner, name } = repository;
  const listed = mask % 2 === 0 ? [`${owner}/${name}`.toUpperCase()] : [`${owner}/*`];
  const neighbours = [`${owner}/${name}-next`, `${owner}-labs/*`, `other/${name}`];
  return repositoryMatcher(c.approves ? [...neighbours, ...listed] : neighbours)(repository);
}
