import { validateAnchor, type AnchorRejection } from '../diff/anchor.js';
import type { ChangedLineSet } from '../diff/changed-lines.js';
import type { Finding, Severity, Side } from '../model/finding.model.js';
import { meetsThreshold, sortFindings } from '../model/ledger.js';
import { inlineCommentBody } from './comment-body.js';
import { renderReviewMarker } from './markers.js';
import { reviewBody } from './review-body.js';
import {
  approvalsToDismiss,
  decideVerdict,
  type ReviewEvent,
  type StandingApproval,
  type VerdictDecision,
  type VerdictInput,
} from './verdict.js';

/** The default severity threshold of a publish. */
export const DEFAULT_SEVERITY_THRESHOLD: Severity = 'medium';
/** At most this many findings are published by one review; the rest are counted in its body. */
export const REVIEW_FINDING_CAP = 6;

/** One inline comment of a review, as GitHub's create-review endpoint takes it. */
export interface ReviewCommentPayload {
  path: string;
  body: string;
  /** The last line of the range. */
  line: number;
  side: Side;
  /** The first line, for a range of more than one line. */
  start_line?: number;
  start_side?: Side;
}

/** The body of `POST /repos/{owner}/{repo}/pulls/{number}/reviews`. */
export interface ReviewPayload {
  commit_id: string;
  event: ReviewEvent;
  body: string;
  comments: ReviewCommentPayload[];
}

export interface ReviewPlanInput {
  pullRequest: number;
  headSha: string;
  /** The whole ledger of the pull request. */
  findings: readonly Finding[];
  /** The pull request's changed-line set at `headSha`: no comment is sent that GitHub would refuse. */
  changedLines: ChangedLineSet;
  threshold?: Severity;
  cap?: number;
  verdict: Omit<VerdictInput, 'openFindings'>;
  /** Caravel's `APPROVE` reviews still standing on the pull request. */
  approvals?: readonly StandingApproval[];
  /**
   * Whether a Caravel review is already on the pull request, as far as the caller could tell
   * (`unknown` when listing the reviews failed: that is not the same as none).
   */
  existingSummary: 'present' | 'absent' | 'unknown';
  /** Where every finding can be seen (the dashboard), linked from the body. */
  webUrl?: string | null;
  /**
   * List every finding in the body, none inline: the last resort after GitHub refused the inline
   * comments twice (`isAnchorRejection`) even with a fresh diff, so the findings still reach the PR.
   */
  summaryOnly?: boolean;
}

/** What to publish, and what was left out and why. */
export interface ReviewPlan {
  action: 'post' | 'skip';
  skipReason: 'empty_re_review' | 'summary_lookup_failed' | null;
  payload: ReviewPayload | null;
  /** Findings posted as inline comments, in payload order. */
  inline: string[];
  /** File-level findings listed in the review body (they cannot be inline). */
  inBody: string[];
  belowThreshold: string[];
  overCap: string[];
  /** Eligible findings whose anchor GitHub would refuse at this head: to be re-anchored. */
  unanchorable: { findingId: string; reason: AnchorRejection; message: string }[];
  verdict: VerdictDecision;
  /** Caravel approvals to dismiss (new findings on a later head). */
  dismissApprovals: string[];
}

/**
 * Plans one publish (one review, one API call). Eligible: open findings of Caravel's, in no review
 * yet, anchored and confirmed at this head. Those under the threshold are counted, not posted;
 * the rest are sorted (severity, file, line) and capped; inline ones must be commentable in the
 * current diff. The verdict counts every open finding of the ledger. With nothing new to say and a
 * comment verdict, an existing Caravel review means no new one (`empty_re_review`); so does not
 * knowing whether one exists (`summary_lookup_failed`).
 */
export function planReview(input: ReviewPlanInput): ReviewPlan {
  const threshold = input.threshold ?? DEFAULT_SEVERITY_THRESHOLD;
  const cap = input.cap ?? REVIEW_FINDING_CAP;
  const eligible = sortFindings(input.findings.filter((f) => isEligible(f, input.headSha)));
  const { belowThreshold, postable, unanchorable } = partition(
    eligible,
    threshold,
    input.summaryOnly ? null : input.changedLines,
  );
  const published = postable.slice(0, cap);
  const parts = {
    inline: input.summaryOnly ? [] : published.filter((f) => f.anchor.startLine !== null),
    inBody: input.summaryOnly ? published : published.filter((f) => f.anchor.startLine === null),
    belowThreshold,
    overCap: postable.slice(cap),
  };
  const openFindings = input.findings.filter((f) => f.status === 'open').length;
  const verdict = decideVerdict({ ...input.verdict, openFindings });
  const ids = (findings: readonly Finding[]): string[] => findings.map((f) => f.id);
  const plan = {
    inline: ids(parts.inline),
    inBody: ids(parts.inBody),
    belowThreshold: ids(parts.belowThreshold),
    overCap: ids(parts.overCap),
    unanchorable,
    verdict,
    dismissApprovals: approvalsToDismiss({
      approvals: input.approvals ?? [],
      headSha: input.headSha,
      openFindings,
      newFindings: published.length,
    }),
  };
  if (published.length === 0 && verdict.event === 'COMMENT' && input.existingSummary !== 'absent') {
    const skipReason =
      input.existingSummary === 'present' ? 'empty_re_review' : 'summary_lookup_failed';
    return { ...plan, action: 'skip', skipReason, payload: null };
  }
  const body = reviewBody({
    ...parts,
    headSha: input.headSha,
    threshold,
    cap,
    openFindings,
    verdict,
    webUrl: input.webUrl ?? null,
  });
  const marker = renderReviewMarker({
    v: 1,
    pr: input.pullRequest,
    head: input.headSha,
    threshold,
    findings: ids(published),
  });
  const payload: ReviewPayload = {
    commit_id: input.headSha,
    event: verdict.event,
    body: `${marker}\n${body}`,
    comments: parts.inline.map(commentPayload),
  };
  return { ...plan, action: 'post', skipReason: null, payload };
}

/**
 * Splits eligible findings into those under the threshold, those GitHub would refuse (not checked
 * without a changed-line set: a summary-only review places nothing), and the rest.
 */
function partition(
  eligible: readonly Finding[],
  threshold: Severity,
  changedLines: ChangedLineSet | null,
): Pick<ReviewPlan, 'unanchorable'> & { belowThreshold: Finding[]; postable: Finding[] } {
  const belowThreshold: Finding[] = [];
  const postable: Finding[] = [];
  const unanchorable: ReviewPlan['unanchorable'] = [];
  for (const finding of eligible) {
    if (!meetsThreshold(finding.severity, threshold)) {
      belowThreshold.push(finding);
      continue;
    }
    const check =
      finding.anchor.startLine === null || changedLines === null
        ? null
        : validateAnchor(finding.anchor, changedLines);
    if (check && !check.ok) {
      unanchorable.push({ findingId: finding.id, reason: check.reason, message: check.message });
      continue;
    }
    postable.push(finding);
  }
  return { belowThreshold, postable, unanchorable };
}

const ANCHOR_REJECTIONS = [
  /could not be resolved/i,
  /must be part of the diff/i,
  /must be part of the same hunk/i,
  /diff hunk can't be blank/i,
  /path is invalid/i,
];

/**
 * Whether a 422 from the create-review call refused an inline comment's place ("Path could not be
 * resolved", "Line could not be resolved", "…line must be part of the diff", "…start line must be
 * part of the same hunk…"). GitHub does not say which comment, and the review is not created: plan
 * again from a fresh diff at the head, then, if refused again, with `summaryOnly`.
 */
export function isAnchorRejection(messages: string | readonly string[]): boolean {
  const list = typeof messages === 'string' ? [messages] : messages;
  return list.some((message) => ANCHOR_REJECTIONS.some((pattern) => pattern.test(message)));
}

function isEligible(finding: Finding, headSha: string): boolean {
  return (
    finding.status === 'open' &&
    finding.author.kind === 'caravel' &&
    finding.surface.reviewId === null &&
    finding.anchor.sha === headSha &&
    finding.lastConfirmedSha === headSha
  );
}

function commentPayload(finding: Finding): ReviewCommentPayload {
  const { file, startLine, endLine, side } = finding.anchor;
  const comment: ReviewCommentPayload = {
    path: file,
    body: inlineCommentBody(finding),
    line: endLine as number,
    side,
  };
  if (startLine !== null && endLine !== null && startLine < endLine) {
    comment.start_line = startLine;
    comment.start_side = side;
  }
  return comment;
}
