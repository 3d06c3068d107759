import type {
  CommitOutcome,
  CommitRequest,
  PullRequestDraft,
  PullRequestRef,
  PullRequestText,
  ScmPort,
} from '@caravel/tools';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';

/** What an attempt asked to publish, kept until the attempts are compared. */
export interface HeldPublication {
  commitMessage: string | null;
  pullRequest: PullRequestDraft | null;
}

/**
 * The SCM of one attempt of a retry-and-select run: commits stay in the attempt's own sandbox and
 * nothing is pushed or opened; what the attempt asked to publish is held, so only the winner's
 * branch and pull request ever reach the repository.
 */
export class HeldScm implements ScmPort {
  readonly held: HeldPublication = { commitMessage: null, pullRequest: null };

  constructor(
    private readonly workspace: ThreadWorkspace,
    private readonly label: string,
  ) {}

  async commitAndPush(request: CommitRequest): Promise<CommitOutcome> {
    const { broker, threadId, branch } = this.workspace;
    const commitSha = await broker.commitAll(threadId, request.message);
    this.held.commitMessage = request.message;
    return { branch, commitSha };
  }

  findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    return Promise.resolve(
      branch === this.workspace.branch && this.held.pullRequest ? this.placeholder() : null,
    );
  }

  openPullRequest(request: PullRequestDraft): Promise<PullRequestRef> {
    this.held.pullRequest = request;
    return Promise.resolve(this.placeholder());
  }

  updatePullRequest(_number: number, request: PullRequestText): Promise<PullRequestRef> {
    if (!this.held.pullRequest) throw new Error('no pull request has been opened yet');
    this.held.pullRequest = { ...this.held.pullRequest, ...request };
    return Promise.resolve(this.placeholder());
  }

  private placeholder(): PullRequestRef {
    return { number: 0, url: this.label, draft: true, standIn: 'held' };
  }
}
