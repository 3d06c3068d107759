/** A review's event on GitHub. */
export const REVIEW_EVENTS = ['APPROVE', 'REQUEST_CHANGES', 'COMMENT'] as const;
export type ReviewEvent = (typeof REVIEW_EVENTS)[number];

/** What the verdict is decided from. */
export interface VerdictInput {
  /** The request explicitly asked for a verdict (an explicit mention; never an automatic review). */
  verdictRequested: boolean;
  /** Open findings of the ledger at this head, whoever raised them (Caravel, people, other bots). */
  openFindings: number;
  /** The pull request is Caravel's own (GitHub refuses both verdicts on one's own pull request). */
  ownPullRequest: boolean;
  /** The repository lets Caravel approve a clean review. */
  approveCleanReviews: boolean;
  /** What the reviewer agent asked for; it can lower the verdict to a comment, never raise it. */
  proposed?: ReviewEvent;
}

/** Why the event is what it is. */
export const VERDICT_REASONS = [
  'own_pull_request',
  'changes_requested',
  'verdict_not_requested',
  'clean_review',
  'approval_not_enabled',
  'approve_with_open_findings',
  'request_changes_without_findings',
  'reviewer_chose_comment',
] as const;
export type VerdictReason = (typeof VERDICT_REASONS)[number];

export interface VerdictDecision {
  event: ReviewEvent;
  reason: VerdictReason;
}

/**
 * The review's event:
 * - Caravel's own pull request: always `COMMENT`;
 * - open findings: `REQUEST_CHANGES` only when the request explicitly asked for a verdict, else
 *   `COMMENT` (an approval asked for while findings are open is downgraded to `COMMENT`);
 * - no open finding: `APPROVE` only when the repository enables clean-review approval, else
 *   `COMMENT`;
 * - the reviewer's `proposed` event may lower any of these to `COMMENT`, never raise them.
 */
export function decideVerdict(input: VerdictInput): VerdictDecision {
  const allowed = allowedVerdict(input);
  const { proposed } = input;
  if (proposed === undefined || proposed === allowed.event) return allowed;
  if (proposed === 'COMMENT') return { event: 'COMMENT', reason: 'reviewer_chose_comment' };
  if (allowed.reason === 'own_pull_request') return allowed;
  if (proposed === 'APPROVE') {
    return input.openFindings > 0
      ? { event: 'COMMENT', reason: 'approve_with_open_findings' }
      : allowed;
  }
  return input.openFindings === 0
    ? { event: 'COMMENT', reason: 'request_changes_without_findings' }
    : allowed;
}

function allowedVerdict(input: VerdictInput): VerdictDecision {
  if (input.ownPullRequest) return { event: 'COMMENT', reason: 'own_pull_request' };
  if (input.openFindings > 0) {
    return input.verdictRequested
      ? { event: 'REQUEST_CHANGES', reason: 'changes_requested' }
      : { event: 'COMMENT', reason: 'verdict_not_requested' };
  }
  return input.approveCleanReviews
    ? { event: 'APPROVE', reason: 'clean_review' }
    : { event: 'COMMENT', reason: 'approval_not_enabled' };
}

/** A Caravel `APPROVE` still standing on the pull request. */
export interface StandingApproval {
  reviewId: string;
  /** The head it approved. */
  commitId: string;
}

/**
 * The Caravel approvals to dismiss now: when findings are open, every approval given at an
 * earlier head (a later push brought problems it did not see), and any approval at all when this
 * publish surfaces new findings. Nothing while no finding is open.
 */
export function approvalsToDismiss(input: {
  approvals: readonly StandingApproval[];
  headSha: string;
  openFindings: number;
  newFindings: number;
}): string[] {
  if (input.openFindings === 0) return [];
  return input.approvals
    .filter((approval) => approval.commitId !== input.headSha || input.newFindings > 0)
    .map((approval) => approval.reviewId);
}
