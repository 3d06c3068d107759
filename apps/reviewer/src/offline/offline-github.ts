import { AppError } from '@caravel/errors';
import type {
  CheckOutput,
  CreatedReview,
  ListedReview,
  ListedReviewComment,
  NewReview,
  PullRequestRef,
  ReviewThread,
} from '@caravel/integrations';
import type { ReviewGitHub } from '../run/review-run.js';

/** A check run as the offline GitHub keeps it. */
export interface OfflineCheck {
  checkRunId: string;
  name: string;
  headSha: string;
  status: 'in_progress' | 'completed';
  conclusion: 'success' | 'neutral' | null;
  output: CheckOutput;
}

/**
 * GitHub for a review no one publishes (`caravel review-eval`): one pull request's reviews,
 * review comments, threads and check runs kept in memory, answered back as GitHub lists them,
 * so a review run reads, recognises and settles what it "posted" exactly as it would on GitHub.
 * Every inline comment is taken (the reviewer's own anchoring decides what is commentable, as it
 * does before GitHub sees a review); nothing leaves the process.
 */
export class OfflineReviewGitHub implements ReviewGitHub {
  readonly reviews: (ListedReview & { event: NewReview['event'] })[] = [];
  readonly comments: ListedReviewComment[] = [];
  readonly threads: ReviewThread[] = [];
  readonly checks: OfflineCheck[] = [];
  private nextId = 1;

  constructor(
    private readonly pullRequest: PullRequestRef,
    private readonly botLogin: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  listReviews(pr: PullRequestRef): Promise<ListedReview[]> {
    this.check(pr);
    return Promise.resolve(this.reviews.map(({ event: _event, ...review }) => ({ ...review })));
  }

  listReviewComments(pr: PullRequestRef): Promise<ListedReviewComment[]> {
    this.check(pr);
    return Promise.resolve(this.comments.map((comment) => ({ ...comment })));
  }

  listThreads(pr: PullRequestRef): Promise<ReviewThread[]> {
    this.check(pr);
    return Promise.resolve(this.threads.map((thread) => ({ ...thread })));
  }

  createReview(pr: PullRequestRef, review: NewReview): Promise<CreatedReview> {
    this.check(pr);
    const reviewId = this.id();
    const state = {
      APPROVE: 'APPROVED',
      REQUEST_CHANGES: 'CHANGES_REQUESTED',
      COMMENT: 'COMMENTED',
    };
    this.reviews.push({
      reviewId,
      body: review.body,
      state: state[review.event],
      event: review.event,
      commitId: review.commit_id,
      login: this.botLogin,
    });
    for (const comment of review.comments) {
      const commentId = this.addComment({
        reviewId,
        inReplyToId: null,
        body: comment.body,
        path: comment.path,
        line: comment.line,
        startLine: comment.start_line ?? null,
        side: comment.side,
        commitId: review.commit_id,
      });
      this.threads.push({
        threadId: `T_${commentId}`,
        isResolved: false,
        firstCommentId: commentId,
      });
    }
    return Promise.resolve({ kind: 'created', reviewId });
  }

  dismissReview(pr: PullRequestRef, reviewId: string): Promise<void> {
    this.check(pr);
    const review = this.reviews.find((r) => r.reviewId === reviewId);
    if (!review) return Promise.reject(new AppError('NOT_FOUND', `no review ${reviewId}`));
    review.state = 'DISMISSED';
    return Promise.resolve();
  }

  reply(pr: PullRequestRef, commentId: string, body: string): Promise<string> {
    this.check(pr);
    const parent = this.comments.find((c) => c.commentId === commentId);
    if (!parent) return Promise.reject(new AppError('NOT_FOUND', `no comment ${commentId}`));
    return Promise.resolve(
      this.addComment({ ...parent, reviewId: null, inReplyToId: commentId, body }),
    );
  }

  resolveThread(pr: PullRequestRef, threadId: string): Promise<void> {
    this.check(pr);
    const thread = this.threads.find((t) => t.threadId === threadId);
    if (!thread) return Promise.reject(new AppError('NOT_FOUND', `no thread ${threadId}`));
    thread.isResolved = true;
    return Promise.resolve();
  }

  startCheck(
    pr: PullRequestRef,
    check: { name: string; headSha: string; output: CheckOutput },
  ): Promise<string> {
    this.check(pr);
    const checkRunId = this.id();
    this.checks.push({ checkRunId, ...check, status: 'in_progress', conclusion: null });
    return Promise.resolve(checkRunId);
  }

  completeCheck(
    pr: PullRequestRef,
    checkRunId: string,
    completion: { conclusion: 'success' | 'neutral'; output: CheckOutput },
  ): Promise<void> {
    this.check(pr);
    const run = this.checks.find((c) => c.checkRunId === checkRunId);
    if (!run) return Promise.reject(new AppError('NOT_FOUND', `no check run ${checkRunId}`));
    Object.assign(run, { status: 'completed', ...completion });
    return Promise.resolve();
  }

  private addComment(
    comment: Omit<
      ListedReviewComment,
      'commentId' | 'login' | 'userType' | 'association' | 'url' | 'createdAt'
    >,
  ): string {
    const commentId = this.id();
    this.comments.push({
      ...comment,
      commentId,
      login: this.botLogin,
      userType: 'Bot',
      // What GitHub says of an App's bot.
      association: 'NONE',
      url: null,
      createdAt: this.now().toISOString(),
    });
    return commentId;
  }

  private id(): string {
    return String(this.nextId++);
  }

  /** One pull request only: a call about another is a bug of the caller's. */
  private check(pr: PullRequestRef): void {
    const { owner, name } = this.pullRequest.repository;
    if (
      pr.repository.owner !== owner ||
      pr.repository.name !== name ||
      pr.number !== this.pullRequest.number
    )
      throw new AppError(
        'BAD_REQUEST',
        `the offline GitHub holds ${owner}/${name}#${this.pullRequest.number} only`,
      );
  }
}
