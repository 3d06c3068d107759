import { validateAnchor } from '../diff/anchor.js';
import type { ChangedLineSet } from '../diff/changed-lines.js';
import {
  notSurfaced,
  type Actor,
  type Anchor,
  type Finding,
  type Report,
  type Side,
} from '../model/finding.model.js';
import { fingerprintOf, matchingFingerprints, newFindingId } from '../model/fingerprint.js';
import { readReviewComment } from './comment-text.js';
import { recordReplies, type ThreadReply } from './replies.js';

/** A review comment on the pull request, as the SCM lists it (GitHub's pull request review comments). */
export interface ReviewComment {
  commentId: string;
  reviewId: string | null;
  threadId: string | null;
  /** Set for a reply; null for the comment that opens a thread. */
  inReplyToId: string | null;
  author: Actor;
  path: string;
  /** First line of a multi-line comment (GitHub's `start_line`), else null. */
  startLine: number | null;
  /** Last line (GitHub's `line`); null for a file-level or outdated comment. */
  line: number | null;
  side: Side | null;
  /** The commit the lines refer to (GitHub's `commit_id`). */
  commitId: string | null;
  body: string;
  url: string | null;
  createdAt: string;
}

export interface IngestContext {
  /** The head the ledger is reconciled to. */
  headSha: string;
  /** The pull request's changed-line set at `headSha`. */
  changedLines: ChangedLineSet;
  at: string;
  newId?: () => string;
}

/** What became of one comment. */
export type IngestOutcome =
  /** Caravel's own (its inline comments are linked by `recognisePublished`). */
  | { commentId: string; kind: 'own' }
  /** Already in the ledger under this comment id. */
  | { commentId: string; kind: 'known'; findingId: string }
  /** Says what a finding of the ledger says on the same lines: recorded as another report of it. */
  | { commentId: string; kind: 'attributed'; findingId: string }
  /** A new finding of the ledger, authored by the comment's author. */
  | { commentId: string; kind: 'added'; findingId: string }
  /** A reply, recorded on the finding of its thread. */
  | { commentId: string; kind: 'reply'; findingId: string | null };

export interface IngestResult {
  findings: Finding[];
  changed: Finding[];
  outcomes: IngestOutcome[];
}

/**
 * Takes every review comment of a pull request into the ledger, whoever wrote it — people,
 * Copilot, CodeRabbit, Bugbot, … — so one ledger spans all reviewers. A thread's first comment is
 * matched by comment id (already known), then by fingerprint at its lines (another report of a
 * finding: attributed to it, never duplicated), else it becomes a finding of its author, open and
 * marked `ingested` until Caravel's reviewer has checked it against the code. Replies are
 * recorded on their thread's finding. Comments whose lines refer to another commit than the head,
 * or none (outdated), are taken in at file level. Ingesting the same comments again changes nothing.
 */
export function ingestReviewComments(
  findings: readonly Finding[],
  comments: readonly ReviewComment[],
  context: IngestContext,
): IngestResult {
  let ledger = [...findings];
  const outcomes: IngestOutcome[] = [];
  const replies: ThreadReply[] = [];
  for (const comment of comments) {
    if (comment.inReplyToId !== null) {
      replies.push({ ...comment, inReplyToId: comment.inReplyToId });
      continue;
    }
    if (comment.author.kind === 'caravel') {
      outcomes.push({ commentId: comment.commentId, kind: 'own' });
      continue;
    }
    const { outcome, next } = ingestRoot(ledger, comment, context);
    ledger = next;
    outcomes.push(outcome);
  }
  const replied = recordReplies(ledger, replies, context.at);
  for (const reply of replies) {
    const owner = replied.findings.find((f) =>
      f.interactions.some((i) => i.commentId === reply.commentId),
    );
    outcomes.push({ commentId: reply.commentId, kind: 'reply', findingId: owner?.id ?? null });
  }
  const changed = replied.findings.filter((finding) => !findings.includes(finding));
  return { findings: replied.findings, changed, outcomes };
}

function ingestRoot(
  ledger: Finding[],
  comment: ReviewComment,
  context: IngestContext,
): { outcome: IngestOutcome; next: Finding[] } {
  const { commentId } = comment;
  const known = ledger.find(
    (f) => f.surface.commentId === commentId || f.reports.some((r) => r.commentId === commentId),
  );
  if (known) return { outcome: { commentId, kind: 'known', findingId: known.id }, next: ledger };
  const reading = readReviewComment(comment.body);
  const anchor = anchorOfComment(comment, context.headSha);
  const fingerprint = fingerprintOf({ ...anchor, description: reading.description });
  const report = reportOf(comment);
  const index = ledger.findIndex((f) => matchingFingerprints(f).includes(fingerprint));
  const same = ledger[index];
  if (same) {
    const next = [...ledger];
    next[index] = { ...same, reports: [...same.reports, report], updatedAt: context.at };
    return { outcome: { commentId, kind: 'attributed', findingId: same.id }, next };
  }
  const finding: Finding = {
    id: (context.newId ?? newFindingId)(),
    fingerprint,
    author: comment.author,
    severity: reading.severity,
    confidence: 'medium',
    category: 'review-comment',
    title: reading.title,
    ...anchor,
    inDiff: validateAnchor(anchor, context.changedLines).ok,
    description: reading.description,
    suggestion: reading.suggestion,
    status: 'open',
    resolution: null,
    firstSeenSha: context.headSha,
    lastConfirmedSha: context.headSha,
    anchor: { ...anchor, sha: context.headSha },
    diffHunk: null,
    recheck: ['ingested'],
    surface: notSurfaced(),
    reports: [report],
    interactions: [],
    createdAt: context.at,
    updatedAt: context.at,
  };
  return {
    outcome: { commentId, kind: 'added', findingId: finding.id },
    next: [...ledger, finding],
  };
}

/** The comment's lines at the head, or its file alone when its lines are of another commit. */
function anchorOfComment(comment: ReviewComment, headSha: string): Anchor {
  const side = comment.side ?? 'RIGHT';
  const atHead = comment.commitId === null || comment.commitId === headSha;
  if (comment.line === null || !atHead) {
    return { file: comment.path, startLine: null, endLine: null, side };
  }
  const start = comment.startLine ?? comment.line;
  return {
    file: comment.path,
    startLine: Math.min(start, comment.line),
    endLine: Math.max(start, comment.line),
    side,
  };
}

function reportOf(comment: ReviewComment): Report {
  return {
    author: comment.author,
    commentId: comment.commentId,
    reviewId: comment.reviewId,
    threadId: comment.threadId,
    url: comment.url,
    sha: comment.commitId,
    at: comment.createdAt,
  };
}
