import { describe, expect, it } from '@jest/globals';

import { PR_LINES } from '../testing/diffs.js';
import { aFinding, sha } from '../testing/finding.factory.js';
import { planReview } from './review-plan.js';
import { approvalsToDismiss, decideVerdict, type ReviewEvent } from './verdict.js';

const HEAD = sha('a');
const STALE_APPROVAL = { reviewId: '77', commitId: sha('0') };

describe('the verdict matrix (explicit ask × open findings × own PR × approval setting × stale approve)', () => {
  // ask, open findings, own PR, repo approves clean reviews, a Caravel APPROVE from an earlier head,
  // expected event, whether that approval is dismissed. Caravel cannot approve its own pull request,
  // so the own-PR rows with a stale approval only show the rule holds whatever the listing says.
  it.each<[boolean, number, boolean, boolean, boolean, ReviewEvent, boolean]>([
    [false, 0, false, false, false, 'COMMENT', false],
    [false, 0, false, false, true, 'COMMENT', false],
    [false, 0, false, true, false, 'APPROVE', false],
    [false, 0, false, true, true, 'APPROVE', false],
    [false, 0, true, false, false, 'COMMENT', false],
    [false, 0, true, false, true, 'COMMENT', false],
    [false, 0, true, true, false, 'COMMENT', false],
    [false, 0, true, true, true, 'COMMENT', false],
    [false, 2, false, false, false, 'COMMENT', false],
    [false, 2, false, false, true, 'COMMENT', true],
    [false, 2, false, true, false, 'COMMENT', false],
    [false, 2, false, true, true, 'COMMENT', true],
    [false, 2, true, false, false, 'COMMENT', false],
    [false, 2, true, false, true, 'COMMENT', true],
    [false, 2, true, true, false, 'COMMENT', false],
    [false, 2, true, true, true, 'COMMENT', true],
    [true, 0, false, false, false, 'COMMENT', false],
    [true, 0, false, false, true, 'COMMENT', false],
    [true, 0, false, true, false, 'APPROVE', false],
    [true, 0, false, true, true, 'APPROVE', false],
    [true, 0, true, false, false, 'COMMENT', false],
    [true, 0, true, false, true, 'COMMENT', false],
    [true, 0, true, true, false, 'COMMENT', false],
    [true, 0, true, true, true, 'COMMENT', false],
    [true, 2, false, false, false, 'REQUEST_CHANGES', false],
    [true, 2, false, false, true, 'REQUEST_CHANGES', true],
    [true, 2, false, true, false, 'REQUEST_CHANGES', false],
    [true, 2, false, true, true, 'REQUEST_CHANGES', true],
    [true, 2, true, false, false, 'COMMENT', false],
    [true, 2, true, false, true, 'COMMENT', true],
    [true, 2, true, true, false, 'COMMENT', false],
    [true, 2, true, true, true, 'COMMENT', true],
  ])(
    'ask=%p open=%p own=%p approvals=%p stale=%p -> %s, dismiss stale approval: %p',
    (ask, open, own, approveClean, stale, event, dismissed) => {
      const findings = Array.from({ length: open }, () => aFinding({ severity: 'high' }));
      const plan = planReview({
        pullRequest: 7,
        headSha: HEAD,
        findings,
        changedLines: PR_LINES,
        verdict: { verdictRequested: ask, ownPullRequest: own, approveCleanReviews: approveClean },
        approvals: stale ? [STALE_APPROVAL] : [],
        existingSummary: 'absent',
      });
      expect(plan.verdict.event).toBe(event);
      expect(plan.payload?.event).toBe(event);
      expect(plan.dismissApprovals).toEqual(dismissed ? ['77'] : []);
    },
  );
});

describe('decideVerdict: what the reviewer proposes', () => {
  const base = { verdictRequested: true, ownPullRequest: false, approveCleanReviews: true };

  it('lets the reviewer lower any verdict to a comment', () => {
    expect(decideVerdict({ ...base, openFindings: 0, proposed: 'COMMENT' })).toEqual({
      event: 'COMMENT',
      reason: 'reviewer_chose_comment',
    });
    expect(decideVerdict({ ...base, openFindings: 2, proposed: 'COMMENT' })).toEqual({
      event: 'COMMENT',
      reason: 'reviewer_chose_comment',
    });
  });

  it('downgrades an approval asked for while findings are open', () => {
    expect(decideVerdict({ ...base, openFindings: 1, proposed: 'APPROVE' })).toEqual({
      event: 'COMMENT',
      reason: 'approve_with_open_findings',
    });
  });

  it('does not request changes without an open finding, nor without an explicit ask', () => {
    expect(decideVerdict({ ...base, openFindings: 0, proposed: 'REQUEST_CHANGES' })).toEqual({
      event: 'COMMENT',
      reason: 'request_changes_without_findings',
    });
    expect(
      decideVerdict({
        ...base,
        verdictRequested: false,
        openFindings: 1,
        proposed: 'REQUEST_CHANGES',
      }),
    ).toEqual({
      event: 'COMMENT',
      reason: 'verdict_not_requested',
    });
  });

  it('never approves when the repository did not enable it, nor on its own pull request', () => {
    expect(
      decideVerdict({ ...base, approveCleanReviews: false, openFindings: 0, proposed: 'APPROVE' }),
    ).toEqual({
      event: 'COMMENT',
      reason: 'approval_not_enabled',
    });
    expect(
      decideVerdict({ ...base, ownPullRequest: true, openFindings: 0, proposed: 'APPROVE' }),
    ).toEqual({
      event: 'COMMENT',
      reason: 'own_pull_request',
    });
  });
});

describe('approvalsToDismiss', () => {
  it('dismisses an approval at this head too when this publish brings new findings', () => {
    const here = { reviewId: '78', commitId: HEAD };
    expect(
      approvalsToDismiss({ approvals: [here], headSha: HEAD, openFindings: 1, newFindings: 1 }),
    ).toEqual(['78']);
    expect(
      approvalsToDismiss({ approvals: [here], headSha: HEAD, openFindings: 1, newFindings: 0 }),
    ).toEqual([]);
  });
});
