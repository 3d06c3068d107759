import type {
  PullRequestDraft,
  PullRequestRef,
  PullRequestText,
  ReviewRequest,
  ReviewRequester,
  ScmPort,
} from '@caravel/tools';
import type { Octokit } from '@octokit/rest';
import { findMarked, withMarker } from '../reply/idempotency-marker.js';
import type { GitHubApi, GitHubRepository } from './github-client.js';

/** The pull-request half of the SCM port: what a code host (GitHub, later GitLab) provides. */
export type PullRequestHost = Pick<
  ScmPort,
  'findOpenPullRequest' | 'openPullRequest' | 'updatePullRequest'
>;

/** A posted comment. */
export interface PostedComment {
  id: number;
  url: string;
  /** False when an earlier post with the same idempotency key was found instead. */
  created: boolean;
}

/** Reactions GitHub accepts. */
export type GitHubReaction =
  '+1' | '-1' | 'laugh' | 'confused' | 'heart' | 'hooray' | 'rocket' | 'eyes';

/** Which comment a reaction is on. */
export interface CommentRef {
  kind: 'issue-comment' | 'review-comment';
  id: number;
}

interface PullJson {
  number: number;
  html_url: string;
  draft?: boolean | undefined;
}

/** A pull request a branch had, as far as what a run on that branch starts from goes. */
export interface BranchPullRequest extends PullRequestRef {
  state: 'open' | 'closed' | 'merged';
  /** The head it had: at the merge, for a merged one. */
  headSha: string;
}

/** How one commit relates to another (GitHub's compare status). */
export type CommitComparison = 'ahead' | 'behind' | 'identical' | 'diverged';

/** The branch's pull request a run continues: an open one, else the latest. */
function currentOf(pulls: readonly BranchPullRequest[]): BranchPullRequest | null {
  const open = pulls.find((pull) => pull.state === 'open');
  if (open) return open;
  return pulls.reduce<BranchPullRequest | null>(
    (latest, pull) => (latest && latest.number > pull.number ? latest : pull),
    null,
  );
}

const toRef = (pull: PullJson): PullRequestRef => ({
  number: pull.number,
  url: pull.html_url,
  draft: pull.draft ?? false,
});

/**
 * GitHub as the code host of one repository: draft pull requests (found by branch, so opening
 * twice updates instead), conversation comments with idempotency keys (a hidden marker checked
 * before posting again), review-comment replies, reactions and review requests.
 */
export class GitHubCodeHost implements PullRequestHost, ReviewRequester {
  constructor(
    private readonly api: GitHubApi,
    private readonly repository: GitHubRepository,
  ) {}

  private get repo(): { owner: string; repo: string } {
    return { owner: this.repository.owner, repo: this.repository.name };
  }

  private get slug(): string {
    return `${this.repository.owner}/${this.repository.name}`;
  }

  private call<T>(action: string, run: (octokit: Octokit) => Promise<T>): Promise<T> {
    return this.api.call(this.repository, `${action} on ${this.slug}`, run);
  }

  async findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    const head = `${this.repository.owner}:${branch}`;
    const pulls = await this.call('list pull requests', (o) =>
      o.rest.pulls.list({ ...this.repo, head, state: 'open', per_page: 1 }),
    );
    const pull = pulls.data[0];
    return pull ? toRef(pull) : null;
  }

  /**
   * The pull request of `branch` (this repository's own) that a run on it continues: its open
   * one, else its most recent, merged or closed; null when it never had one.
   */
  async branchPullRequest(branch: string): Promise<BranchPullRequest | null> {
    const head = `${this.repository.owner}:${branch}`;
    const pulls = await this.call('list pull requests', (o) =>
      o.rest.pulls.list({ ...this.repo, head, state: 'all', per_page: 100 }),
    );
    return currentOf(
      pulls.data.map((pull) => ({
        ...toRef(pull),
        state: pull.merged_at ? 'merged' : pull.state === 'open' ? 'open' : 'closed',
        headSha: pull.head.sha,
      })),
    );
  }

  /**
   * How commit `head` relates to commit `base` in this repository: `ahead` when `head` has
   * commits `base` lacks and not the other way (`base` is behind it), `identical`, `behind` or
   * `diverged`. A commit GitHub does not have fails (NOT_FOUND).
   */
  async compare(base: string, head: string): Promise<CommitComparison> {
    const compared = await this.call(`compare ${base.slice(0, 12)}...${head.slice(0, 12)}`, (o) =>
      o.rest.repos.compareCommitsWithBasehead({
        ...this.repo,
        basehead: `${base}...${head}`,
        per_page: 1,
      }),
    );
    return compared.data.status;
  }

  async openPullRequest(request: PullRequestDraft): Promise<PullRequestRef> {
    const existing = await this.findOpenPullRequest(request.branch);
    if (existing) return this.updatePullRequest(existing.number, request);
    return this.call('open a pull request', async (o) => {
      const base = request.base ?? (await o.rest.repos.get(this.repo)).data.default_branch;
      const created = await o.rest.pulls.create({
        ...this.repo,
        head: request.branch,
        base,
        title: request.title,
        body: request.body,
        draft: request.draft ?? true,
      });
      return toRef(created.data);
    });
  }

  async updatePullRequest(number: number, request: PullRequestText): Promise<PullRequestRef> {
    const updated = await this.call(`update pull request #${number}`, (o) =>
      o.rest.pulls.update({
        ...this.repo,
        pull_number: number,
        title: request.title,
        body: request.body,
      }),
    );
    return toRef(updated.data);
  }

  /**
   * Comments on an issue or pull request conversation. With `idempotencyKey`, a comment carrying
   * the same key is looked for first and returned instead of posting twice.
   */
  async comment(number: number, body: string, idempotencyKey?: string): Promise<PostedComment> {
    return this.call(`comment on #${number}`, async (o) => {
      if (idempotencyKey) {
        const comments = await o.paginate(o.rest.issues.listComments, {
          ...this.repo,
          issue_number: number,
          per_page: 100,
        });
        const earlier = findMarked(comments, idempotencyKey);
        if (earlier) return { id: earlier.id, url: earlier.html_url, created: false };
      }
      const text = idempotencyKey ? withMarker(body, idempotencyKey) : body;
      const created = await o.rest.issues.createComment({
        ...this.repo,
        issue_number: number,
        body: text,
      });
      return { id: created.data.id, url: created.data.html_url, created: true };
    });
  }

  /** Replies in the thread of a pull-request review comment. */
  async replyToReviewComment(
    number: number,
    commentId: number,
    body: string,
  ): Promise<PostedComment> {
    const reply = await this.call(`reply to review comment ${commentId}`, (o) =>
      o.rest.pulls.createReplyForReviewComment({
        ...this.repo,
        pull_number: number,
        comment_id: commentId,
        body,
      }),
    );
    return { id: reply.data.id, url: reply.data.html_url, created: true };
  }

  /** Adds a reaction to a comment (GitHub itself keeps one per user and kind). */
  async react(comment: CommentRef, content: GitHubReaction): Promise<void> {
    await this.call(`react to comment ${comment.id}`, (o) =>
      comment.kind === 'issue-comment'
        ? o.rest.reactions.createForIssueComment({ ...this.repo, comment_id: comment.id, content })
        : o.rest.reactions.createForPullRequestReviewComment({
            ...this.repo,
            comment_id: comment.id,
            content,
          }),
    );
  }

  /** Requests reviews from people; the reviewer agent is dispatched by the caller's binding. */
  async requestReview(
    request: ReviewRequest,
  ): Promise<{ pullRequest: PullRequestRef; requested: string[] }> {
    const action = `request a review of #${request.pullRequest}`;
    return this.call(action, async (o) => {
      if (request.reviewers.length === 0) {
        const pull = await o.rest.pulls.get({ ...this.repo, pull_number: request.pullRequest });
        return { pullRequest: toRef(pull.data), requested: [] };
      }
      const asked = await o.rest.pulls.requestReviewers({
        ...this.repo,
        pull_number: request.pullRequest,
        reviewers: request.reviewers,
      });
      return { pullRequest: toRef(asked.data), requested: request.reviewers };
    });
  }
}
