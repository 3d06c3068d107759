import {
  parseReviewMarker,
  type PublishedComment,
  type PublishedReview,
  type StandingApproval,
} from '@caravel/findings';
import type {
  GitHubReviews,
  ListedReview,
  ListedReviewComment,
  PullRequestRef,
  ReviewThread,
} from '@caravel/integrations';

/** What GitHub holds of Caravel's reviewing on one pull request, read in one go. */
export interface PullRequestView {
  /** Caravel's reviews (authored by its login) with their bodies, for `recognisePublished`. */
  reviews: PublishedReview[];
  /** Caravel's review comments, each with its thread's node id when GitHub listed one. */
  comments: PublishedComment[];
  /** Caravel's approvals still standing (not dismissed). */
  approvals: StandingApproval[];
  threads: ReviewThread[];
}

/**
 * Reads the pull request's reviews, review comments and threads. Only what Caravel's own login
 * wrote counts: anyone can paste a hidden marker into a comment, and a marker in someone else's
 * review must not make Caravel believe its findings were published.
 */
export async function readPullRequest(
  github: Pick<GitHubReviews, 'listReviews' | 'listReviewComments' | 'listThreads'>,
  pr: PullRequestRef,
  botLogin: string,
): Promise<PullRequestView> {
  const [reviews, comments, threads] = await Promise.all([
    github.listReviews(pr),
    github.listReviewComments(pr),
    github.listThreads(pr),
  ]);
  const mine = (login: string | null): boolean => login?.toLowerCase() === botLogin.toLowerCase();
  const threadOf = new Map(threads.map((thread) => [thread.firstCommentId, thread.threadId]));
  const own = reviews.filter((review) => mine(review.login));
  return {
    reviews: own.map((review) => ({ reviewId: review.reviewId, body: review.body })),
    comments: comments
      .filter((comment: ListedReviewComment) => mine(comment.login))
      .map((comment) => ({
        commentId: comment.commentId,
        reviewId: comment.reviewId,
        threadId: threadOf.get(comment.commentId) ?? null,
        body: comment.body,
      })),
    approvals: own
      .filter((review: ListedReview) => review.state === 'APPROVED' && review.commitId !== null)
      .filter((review) => parseReviewMarker(review.body) !== null)
      .map((review) => ({ reviewId: review.reviewId, commitId: review.commitId as string })),
    threads,
  };
}
