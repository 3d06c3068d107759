import { describe, expect, it } from '@jest/globals';
import type { ReviewLedgerRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { sha, T0 } from '@caravel/findings/testing';
import { verdictOfLedger } from './review-verdict.js';

const ledger = (verdict: Partial<ReviewLedgerRow>) => factory.reviewLedger(verdict);

describe("a ledger's verdict", () => {
  const recorded = {
    verdictEvent: 'APPROVE' as const,
    verdictReason: 'clean_review' as const,
    verdictSha: sha('c'),
    verdictAt: new Date(T0),
  };

  it('reads a posted review and a publish that posted nothing', () => {
    expect(verdictOfLedger(ledger({ ...recorded, verdictReviewId: '9' }))).toEqual({
      event: 'APPROVE',
      reason: 'clean_review',
      posted: true,
      reviewId: '9',
      headSha: sha('c'),
      at: new Date(T0).toISOString(),
    });
    expect(verdictOfLedger(ledger(recorded))).toMatchObject({ posted: false, reviewId: null });
  });

  it('is null before the first publish', () => {
    expect(verdictOfLedger(ledger({}))).toBeNull();
  });
});
