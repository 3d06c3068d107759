import type { ReviewLedgerRow } from '@caravel/db';

/** The verdict of a pull request's latest publish: the event, why, and whether it was posted. */
export interface ReviewVerdictView {
  event: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';
  reason: string;
  posted: boolean;
  /** GitHub's id of the posted review; null when none was posted. */
  reviewId: string | null;
  /** The head the publish covered, and when it happened. */
  headSha: string;
  at: string;
}

/** The verdict the reviewer recorded on the ledger at its latest publish; null before the first. */
export function verdictOfLedger(ledger: ReviewLedgerRow): ReviewVerdictView | null {
  const { verdictEvent, verdictReason, verdictSha, verdictAt } = ledger;
  if (!verdictEvent || !verdictReason || !verdictSha || !verdictAt) return null;
  return {
    event: verdictEvent,
    reason: verdictReason,
    posted: ledger.verdictReviewId !== null,
    reviewId: ledger.verdictReviewId,
    headSha: verdictSha,
    at: verdictAt.toISOString(),
  };
}
