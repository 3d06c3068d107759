import type { FindingRepository } from '@caravel/db';
import {
  classifyAuthor,
  ingestReviewComments,
  parseUnifiedDiff,
  reconcileFindings,
  type Finding,
  type IngestOutcome,
  type ReconcileChange,
  type ReviewComment,
} from '@caravel/findings';
import type {
  GitHubReviews,
  ListedReviewComment,
  PullRequestRef,
  ReviewThread,
} from '@caravel/integrations';
import type { PreparedReview } from '../preparation/prepare-review.js';
import { countsForLedger } from './counts-for-ledger.js';
import { dismissOutsidersFindings } from './outsider-findings.js';

/** What bringing a ledger up to a new head did. */
export interface LedgerSync {
  /** How each finding anchored at the last reviewed head followed the push. */
  moved: ReconcileChange[];
  /** What became of each review comment that counts for the ledger (`countsForLedger`). */
  ingested: IngestOutcome[];
  /**
   * The review comments of people outside the repository, oldest first: not taken in, they change
   * no finding and no verdict; the reviewer reads them as untrusted text.
   */
  outsiders: ListedReviewComment[];
  /** Open findings only outsiders had raised, dismissed now (`dismissOutsidersFindings`). */
  dismissed: string[];
}

export type SyncGitHub = Pick<GitHubReviews, 'listReviewComments' | 'listThreads'>;

/**
 * Brings a pull request's ledger to the head a review prepared, before the reviewer looks at it:
 * first the findings follow the code from the last reviewed head (`reconcileFindings` on the
 * two-dot inter-diff: quiet re-anchoring, a recheck where their lines changed, `code_removed`
 * where their code went), then the review comments of the repository's own people and installed
 * bots are taken in (`ingestReviewComments`; who counts: `countsForLedger`): they become findings
 * of their authors or reports of the finding they repeat, once per comment id, and replies mark
 * their finding for reassessment. Anyone else's comments are set aside as `outsiders`, and a
 * finding only they raised (taken in before) is dismissed. Both steps are idempotent: a
 * redelivered request changes nothing the second time.
 */
export class LedgerSyncService {
  constructor(
    private readonly findings: FindingRepository,
    private readonly github: SyncGitHub,
    private readonly botLogin: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async sync(threadId: string, pr: PullRequestRef, prepared: PreparedReview): Promise<LedgerSync> {
    const at = this.now().toISOString();
    let moved: ReconcileChange[] = [];
    const { since } = prepared;
    if (since) {
      await this.findings.updateAll(threadId, (current) => {
        const result = reconcileFindings({
          findings: current,
          fromSha: since.fromSha,
          toSha: prepared.headSha,
          interDiff: parseUnifiedDiff(since.interDiff.text),
          ...(since.baseDiff ? { baseDiff: parseUnifiedDiff(since.baseDiff.text) } : {}),
          changedLines: prepared.pullRequestDiff.lines,
          at,
        });
        moved = result.changes;
        return result.changed;
      });
    }
    const [listed, threads] = await Promise.all([
      this.github.listReviewComments(pr),
      this.github.listThreads(pr),
    ]);
    const counted: ListedReviewComment[] = [];
    const outsiders: ListedReviewComment[] = [];
    for (const comment of listed) {
      (countsForLedger(comment, this.botLogin) ? counted : outsiders).push(comment);
    }
    const comments = counted.map((comment) => this.reviewComment(comment, threads));
    let ingested: IngestOutcome[] = [];
    let dismissed: Finding[] = [];
    await this.findings.updateAll(threadId, (current) => {
      const result = ingestReviewComments(current, comments, {
        headSha: prepared.headSha,
        changedLines: prepared.pullRequestDiff.lines,
        at,
      });
      ingested = result.outcomes;
      dismissed = dismissOutsidersFindings(result.findings, outsiders, {
        sha: prepared.headSha,
        at,
      });
      const ids = new Set(dismissed.map((f) => f.id));
      return [...result.changed.filter((f) => !ids.has(f.id)), ...dismissed];
    });
    return { moved, ingested, outsiders, dismissed: dismissed.map((f) => f.id) };
  }

  private reviewComment(comment: ListedReviewComment, threads: ReviewThread[]): ReviewComment {
    const login = comment.login ?? 'ghost';
    const opener = comment.inReplyToId ?? comment.commentId;
    return {
      commentId: comment.commentId,
      reviewId: comment.reviewId,
      threadId: threads.find((t) => t.firstCommentId === opener)?.threadId ?? null,
      inReplyToId: comment.inReplyToId,
      author: classifyAuthor({ login, type: comment.userType ?? 'User' }, [this.botLogin]),
      path: comment.path,
      startLine: comment.startLine,
      line: comment.line,
      side: comment.side,
      commitId: comment.commitId,
      body: comment.body,
      url: comment.url,
      createdAt: comment.createdAt,
    };
  }
}
