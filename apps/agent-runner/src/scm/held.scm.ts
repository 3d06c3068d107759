import type * as Tools from '@caravel/tools';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';

/** What an attempt asked to publish, kept until the attempts are compared. */
export interface HeldPublication {
  commitMessage: string | null;
  pullRequest: Tools.PullRequestDraft | null;
}

/**
 * The SCM of one attempt of a retry-and-select run: commits stay in the attempt's own sandbox and
 * nothing is pushed or opened; what the attempt asked to publish is held, so only the winner's
 * branch and pull request ever reach the repository.
 */
export class HeldScm implements Tools.ScmPort {
  readonly held: HeldPublication = { commitMessage: null, pullRequest: null };

  constructor(
    private readonly workspace: ThreadWorkspace,
    private readonly label: string,
  ) {}

  async commitAndPush(request: Tools.CommitRequest): Promise<Tools.CommitOutcome> {
    const { broker, threadId, branch } = this.workspace;
    const commitSha = await broker.commitAll(threadId, request.message);
    this.held.commitMessage = request.message;
    return { branch, commitSha };
  }

  findOpenPullRequest(branch: string): Promise<Tools.PullRequestRef | null> {
    return Promise.resolve(
      branch === this.workspace.branch && this.held.pullRequest ? this.placeholder() : null,
    );
  }

  openPullRequest(request: Tools.PullRequestDraft): Promise<Tools.PullRequestRef> {
    this.held.pullRequest = request;
    return Promise.resolve(this.placeholder());
  }

  updatePullRequest(
    _number: number,
    request: Tools.PullRequestText,
  ): Promise<Tools.PullRequestRef> {
    if (!this.held.pullRequest) throw new Error('no pull request has been opened yet');
    this.held.pullRequest = { ...this.held.pullRequest, ...request };
    return Promise.resolve(this.placeholder());
  }

  private placeholder(): Tools.PullRequestRef {
    return { number: 0, url: this.label, draft: true, standIn: 'held' };
  }
}
