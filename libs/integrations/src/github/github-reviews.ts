import type { Octokit } from '@octokit/rest';
import type { GitHubApi, GitHubRepository } from './github-client.js';

/** A pull request of a repository. */
export interface PullRequestRef {
  repository: GitHubRepository;
  number: number;
}

/** A review on a pull request, as GitHub lists it. */
export interface ListedReview {
  reviewId: string;
  body: string;
  /** `COMMENTED`, `APPROVED`, `CHANGES_REQUESTED`, `DISMISSED`, `PENDING`. */
  state: string;
  commitId: string | null;
  login: string | null;
}

/** A review comment (an inline comment or a reply in its thread), as GitHub lists it. */
export interface ListedReviewComment {
  commentId: string;
  reviewId: string | null;
  inReplyToId: string | null;
  body: string;
  login: string | null;
  userType: string | null;
  /**
   * How the author relates to the repository (GitHub's `author_association`: `OWNER`, `MEMBER`,
   * `COLLABORATOR`, `CONTRIBUTOR`, `NONE`, …); null when GitHub said nothing.
   */
  association: string | null;
  path: string;
  line: number | null;
  startLine: number | null;
  side: 'LEFT' | 'RIGHT' | null;
  commitId: string | null;
  url: string | null;
  createdAt: string;
}

/** A review thread (GraphQL): its node id, whether it is resolved, and its first comment's id. */
export interface ReviewThread {
  threadId: string;
  isResolved: boolean;
  firstCommentId: string | null;
}

/** One inline comment of a new review (GitHub's create-review `comments[]`). */
export interface NewReviewComment {
  path: string;
  body: string;
  line: number;
  side: 'LEFT' | 'RIGHT';
  start_line?: number;
  start_side?: 'LEFT' | 'RIGHT';
}

/** A review to create in one call. */
export interface NewReview {
  commit_id: string;
  event: 'APPROVE' | 'REQUEST_CHANGES' | 'COMMENT';
  body: string;
  comments: NewReviewComment[];
}

/**
 * What the create-review call did: `created`, or `rejected` with GitHub's 422 messages (an inline
 * comment it could not place: nothing was created; which comment it does not say).
 */
export type CreatedReview =
  { kind: 'created'; reviewId: string } | { kind: 'rejected'; messages: string[] };

/** A check run's output (title and markdown summary). */
export interface CheckOutput {
  title: string;
  summary: string;
}

const THREADS_QUERY = `query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 1) { nodes { databaseId } } }
      }
    }
  }
}`;

const RESOLVE_MUTATION = `mutation($threadId: ID!) {
  resolveReviewThread(input: { threadId: $threadId }) { thread { id isResolved } }
}`;

interface ThreadsPage {
  repository: {
    pullRequest: {
      reviewThreads: {
        pageInfo: { hasNextPage: boolean; endCursor: string | null };
        nodes: {
          id: string;
          isResolved: boolean;
          comments: { nodes: { databaseId: number | null }[] };
        }[];
      };
    } | null;
  } | null;
}

const idOrNull = (id: number | null | undefined): string | null =>
  id === null || id === undefined ? null : String(id);

/**
 * What the reviewer publishes on GitHub, through Octokit (REST, and GraphQL for review threads):
 * reviews (list, create in one call, dismiss), review comments (list, reply), review threads
 * (list, resolve) and check runs (create, complete). Failures are coded `AppError`s, except a
 * create-review 422 about an inline comment's place, which is returned as `rejected`.
 */
export class GitHubReviews {
  constructor(private readonly api: GitHubApi) {}

  /** Every review of the pull request, oldest first. */
  async listReviews(pr: PullRequestRef): Promise<ListedReview[]> {
    return this.call(pr, 'list reviews', async (octokit) => {
      const reviews = await octokit.paginate(octokit.rest.pulls.listReviews, {
        ...this.params(pr),
        per_page: 100,
      });
      return reviews.map((review) => ({
        reviewId: String(review.id),
        body: review.body ?? '',
        state: review.state,
        commitId: review.commit_id ?? null,
        login: review.user?.login ?? null,
      }));
    });
  }

  /** Every review comment of the pull request (inline comments and replies), oldest first. */
  async listReviewComments(pr: PullRequestRef): Promise<ListedReviewComment[]> {
    return this.call(pr, 'list review comments', async (octokit) => {
      const comments = await octokit.paginate(octokit.rest.pulls.listReviewComments, {
        ...this.params(pr),
        per_page: 100,
      });
      return comments.map((comment) => ({
        commentId: String(comment.id),
        reviewId: idOrNull(comment.pull_request_review_id),
        inReplyToId: idOrNull(comment.in_reply_to_id),
        body: comment.body,
        login: comment.user?.login ?? null,
        userType: comment.user?.type ?? null,
        association: comment.author_association ?? null,
        path: comment.path,
        line: comment.line ?? null,
        startLine: comment.start_line ?? null,
        side: comment.side ?? null,
        commitId: comment.commit_id ?? null,
        url: comment.html_url ?? null,
        createdAt: comment.created_at,
      }));
    });
  }

  /** The pull request's review threads (GraphQL node ids, as `resolveThread` takes them). */
  async listThreads(pr: PullRequestRef): Promise<ReviewThread[]> {
    return this.call(pr, 'list review threads', async (octokit) => {
      const threads: ReviewThread[] = [];
      let cursor: string | null = null;
      for (;;) {
        const page: ThreadsPage = await octokit.graphql<ThreadsPage>(THREADS_QUERY, {
          owner: pr.repository.owner,
          name: pr.repository.name,
          number: pr.number,
          cursor,
        });
        const connection = page.repository?.pullRequest?.reviewThreads;
        if (!connection) return threads;
        for (const node of connection.nodes) {
          threads.push({
            threadId: node.id,
            isResolved: node.isResolved,
            firstCommentId: idOrNull(node.comments.nodes[0]?.databaseId),
          });
        }
        if (!connection.pageInfo.hasNextPage) return threads;
        cursor = connection.pageInfo.endCursor;
      }
    });
  }

  /** Creates the review in one call; a 422 about an inline comment's place is `rejected`. */
  async createReview(pr: PullRequestRef, review: NewReview): Promise<CreatedReview> {
    return this.call(pr, 'create review', async (octokit) => {
      try {
        const { data } = await octokit.rest.pulls.createReview({ ...this.params(pr), ...review });
        return { kind: 'created', reviewId: String(data.id) };
      } catch (error) {
        const messages = unprocessableMessages(error);
        if (messages) return { kind: 'rejected', messages };
        throw error;
      }
    });
  }

  /** Dismisses a review (an approval that no longer stands) with `message`. */
  async dismissReview(pr: PullRequestRef, reviewId: string, message: string): Promise<void> {
    await this.call(pr, 'dismiss review', (octokit) =>
      octokit.rest.pulls.dismissReview({
        ...this.params(pr),
        review_id: Number(reviewId),
        message,
        event: 'DISMISS',
      }),
    );
  }

  /** Replies in the thread of review comment `commentId`; returns the reply's id. */
  async reply(pr: PullRequestRef, commentId: string, body: string): Promise<string> {
    return this.call(pr, 'reply to review comment', async (octokit) => {
      const { data } = await octokit.rest.pulls.createReplyForReviewComment({
        ...this.params(pr),
        comment_id: Number(commentId),
        body,
      });
      return String(data.id);
    });
  }

  /** Resolves a review thread (GraphQL `resolveReviewThread`). */
  async resolveThread(pr: PullRequestRef, threadId: string): Promise<void> {
    await this.call(pr, 'resolve review thread', (octokit) =>
      octokit.graphql(RESOLVE_MUTATION, { threadId }),
    );
  }

  /** Starts a check run on `headSha`, in progress; returns its id. */
  async startCheck(
    pr: PullRequestRef,
    check: { name: string; headSha: string; detailsUrl?: string; output: CheckOutput },
  ): Promise<string> {
    return this.call(pr, 'create check run', async (octokit) => {
      const { data } = await octokit.rest.checks.create({
        owner: pr.repository.owner,
        repo: pr.repository.name,
        name: check.name,
        head_sha: check.headSha,
        status: 'in_progress',
        started_at: new Date().toISOString(),
        ...(check.detailsUrl ? { details_url: check.detailsUrl } : {}),
        output: check.output,
      });
      return String(data.id);
    });
  }

  /** Completes check run `checkRunId` with `conclusion`. */
  async completeCheck(
    pr: PullRequestRef,
    checkRunId: string,
    completion: { conclusion: 'success' | 'neutral'; output: CheckOutput },
  ): Promise<void> {
    await this.call(pr, 'complete check run', (octokit) =>
      octokit.rest.checks.update({
        owner: pr.repository.owner,
        repo: pr.repository.name,
        check_run_id: Number(checkRunId),
        status: 'completed',
        conclusion: completion.conclusion,
        completed_at: new Date().toISOString(),
        output: completion.output,
      }),
    );
  }

  private params(pr: PullRequestRef): { owner: string; repo: string; pull_number: number } {
    return { owner: pr.repository.owner, repo: pr.repository.name, pull_number: pr.number };
  }

  private call<T>(
    pr: PullRequestRef,
    action: string,
    call: (octokit: Octokit) => Promise<T>,
  ): Promise<T> {
    return this.api.call(pr.repository, action, call);
  }
}

/** GitHub's messages of a 422 (`{message, errors: [string | {message}]}`), else undefined. */
function unprocessableMessages(error: unknown): string[] | undefined {
  const failure = error as { status?: number; response?: { data?: unknown } } | null;
  if (failure?.status !== 422) return undefined;
  const data = (failure.response?.data ?? {}) as { message?: unknown; errors?: unknown };
  const errors = Array.isArray(data.errors) ? data.errors : [];
  const messages = errors.map((entry: unknown): string => {
    if (typeof entry === 'string') return entry;
    const message = (entry as { message?: unknown } | null)?.message;
    return typeof message === 'string' ? message : JSON.stringify(entry);
  });
  if (typeof data.message === 'string') messages.push(data.message);
  return messages;
}
