import { describe, expect, it } from '@jest/globals';
import { verdictOfStep } from './review-verdict.js';

const step = (content: string) => ({ results: [{ name: 'publish_review', content }] });

describe("a publish_review step's verdict", () => {
  it('reads a posted review and a publish that posted nothing', () => {
    expect(
      verdictOfStep(step('Published review 9 (APPROVE, clean_review): 0 finding(s).')),
    ).toEqual({ event: 'APPROVE', reason: 'clean_review', posted: true, reviewId: '9' });
    expect(
      verdictOfStep(step('No review posted (no_change); verdict COMMENT (verdict_not_requested).')),
    ).toEqual({ event: 'COMMENT', reason: 'verdict_not_requested', posted: false, reviewId: null });
  });

  it('is null for a step without a readable publish result', () => {
    expect(verdictOfStep(null)).toBeNull();
    expect(verdictOfStep(step('something else'))).toBeNull();
    expect(
      verdictOfStep({ results: [{ name: 'other', content: 'verdict COMMENT (x)' }] }),
    ).toBeNull();
  });
});
