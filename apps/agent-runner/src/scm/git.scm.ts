import type {
  CommitOutcome,
  CommitRequest,
  PullRequestDraft,
  PullRequestRef,
  PullRequestText,
  ScmPort,
} from '@caravel/tools';
import type { ThreadWorkspace } from './thread-sandbox.service.js';

/**
 * SCM for repositories cloned from a local path or a plain git URL: one broker request commits in
 * the sandbox and pushes the branch, from the broker's host, to the thread's repository on
 * record. A plain git remote has no pull requests, so the "pull request" is the pushed branch,
 * recorded once per thread.
 */
export class LocalGitScm implements ScmPort {
  private pullRequest: PullRequestRef | null = null;

  constructor(private readonly workspace: ThreadWorkspace) {}

  async commitAndPush(request: CommitRequest): Promise<CommitOutcome> {
    const { broker, threadId, branch, repository } = this.workspace;
    const published = await broker.push({
      threadId,
      branch,
      repository,
      commitMessage: request.message,
    });
    return { branch, commitSha: published.commitSha };
  }

  findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    return Promise.resolve(branch === this.workspace.branch ? this.pullRequest : null);
  }

  openDraftPullRequest(request: PullRequestDraft): Promise<PullRequestRef> {
    const where = this.workspace.origin ?? `sandbox:${this.workspace.sandbox.id}`;
    // The pushed branch stands for the pull request; it records whether it was asked as a draft.
    const draft = request.draft ?? true;
    this.pullRequest = { number: 0, url: `${where}#${request.branch}`, draft };
    return Promise.resolve(this.pullRequest);
  }

  updatePullRequest(_number: number, _request: PullRequestText): Promise<PullRequestRef> {
    if (!this.pullRequest) throw new Error('no branch has been published yet');
    return Promise.resolve(this.pullRequest);
  }
}
