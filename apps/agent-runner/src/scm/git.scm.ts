import type * as Tools from '@caravel/tools';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';

/**
 * Commits everything in the thread's sandbox and pushes its branch, in one broker request
 * (`SandboxGitPush` with the commit message): the broker commits inside the sandbox and pushes
 * from its own host to the thread's repository on record, so the sandbox holds no credential and
 * names no push target.
 */
export async function commitAndPushBranch(
  workspace: ThreadWorkspace,
  request: Tools.CommitRequest,
): Promise<Tools.CommitOutcome> {
  const { broker, threadId, branch, repository } = workspace;
  const published = await broker.push({
    threadId,
    branch,
    repository,
    commitMessage: request.message,
  });
  return { branch, commitSha: published.commitSha };
}

/**
 * SCM for repositories cloned from a local path or a plain git URL: the branch is committed and
 * pushed by the broker ({@link commitAndPushBranch}). A plain git remote has no pull requests, so
 * the "pull request" is the pushed branch, recorded once per thread.
 */
export class GitScm implements Tools.ScmPort {
  private pullRequest: Tools.PullRequestRef | null = null;

  constructor(private readonly workspace: ThreadWorkspace) {}

  commitAndPush(request: Tools.CommitRequest): Promise<Tools.CommitOutcome> {
    return commitAndPushBranch(this.workspace, request);
  }

  findOpenPullRequest(branch: string): Promise<Tools.PullRequestRef | null> {
    return Promise.resolve(branch === this.workspace.branch ? this.pullRequest : null);
  }

  openPullRequest(request: Tools.PullRequestDraft): Promise<Tools.PullRequestRef> {
    const where = this.workspace.origin ?? `sandbox:${this.workspace.sandbox.id}`;
    // The pushed branch stands for the pull request; it records whether it was asked as a draft.
    const draft = request.draft ?? true;
    this.pullRequest = { number: 0, url: `${where}#${request.branch}`, draft, standIn: 'branch' };
    return Promise.resolve(this.pullRequest);
  }

  updatePullRequest(
    _number: number,
    _request: Tools.PullRequestText,
  ): Promise<Tools.PullRequestRef> {
    if (!this.pullRequest) throw new Error('no branch has been published yet');
    return Promise.resolve(this.pullRequest);
  }
}
