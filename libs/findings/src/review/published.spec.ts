import { describe, expect, it } from '@jest/globals';

import { PR_LINES } from '../testing/diffs.js';
import { aFinding, sha, T0 } from '../testing/finding.factory.js';
import { hasCaravelReview, recognisePublished } from './published.js';
import { planReview } from './review-plan.js';

const HEAD = sha('a');
const T1 = '2026-03-02T10:00:00.000Z';

describe('recognisePublished', () => {
  const inline = aFinding({ severity: 'high' });
  const whole = aFinding({
    severity: 'high',
    startLine: null,
    endLine: null,
    anchor: { file: 'src/app.ts', startLine: null, endLine: null, side: 'RIGHT', sha: HEAD },
  });
  const payload = planReview({
    pullRequest: 7,
    headSha: HEAD,
    findings: [inline, whole],
    changedLines: PR_LINES,
    verdict: { verdictRequested: false, ownPullRequest: false, approveCleanReviews: false },
    existingSummary: 'absent',
  }).payload;
  // What GitHub lists after the review was created but its answer was lost.
  const reviews = [
    { reviewId: '500', body: 'LGTM' },
    { reviewId: '501', body: payload?.body ?? '' },
  ];
  const comments = [
    {
      commentId: '900',
      reviewId: '501',
      threadId: 'PRRT_9',
      body: payload?.comments[0]?.body ?? '',
    },
  ];

  it('links each finding of a posted review to it and to its inline comment, so the retry posts nothing again', () => {
    const result = recognisePublished([inline, whole], { reviews, comments }, T1);
    expect(result.linked).toEqual([whole.id, inline.id]); // file-level first, as the review sorts
    expect(result.findings[0]?.surface).toMatchObject({
      state: 'surfaced',
      reviewId: '501',
      commentId: '900',
      threadId: 'PRRT_9',
      surfacedAtSha: HEAD,
      severityThresholdAtPublish: 'medium',
    });
    expect(result.findings[1]?.surface).toMatchObject({
      state: 'surfaced',
      reviewId: '501',
      commentId: null,
    });
    const retry = planReview({
      pullRequest: 7,
      headSha: HEAD,
      findings: result.findings,
      changedLines: PR_LINES,
      verdict: { verdictRequested: false, ownPullRequest: false, approveCleanReviews: false },
      existingSummary: 'present',
    });
    expect(retry).toMatchObject({
      action: 'skip',
      skipReason: 'empty_re_review',
      inline: [],
      inBody: [],
    });
  });

  it('changes nothing the second time', () => {
    const once = recognisePublished([inline, whole], { reviews, comments }, T1);
    expect(recognisePublished(once.findings, { reviews, comments }, T1).changed).toEqual([]);
  });

  it('tells a Caravel review from others', () => {
    expect(hasCaravelReview(reviews)).toBe(true);
    expect(hasCaravelReview([{ reviewId: '1', body: `LGTM ${T0}` }])).toBe(false);
  });
});
