import type { PullRequestHost } from '@caravel/integrations';
import type * as Tools from '@caravel/tools';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { commitAndPushBranch } from './git.scm.js';

/**
 * SCM for repositories on the configured GitHub: the branch is committed and pushed by the broker
 * in one request, as for a plain git remote (through its credential proxy, with an installation
 * token the sandbox never sees); pull requests are GitHub's drafts.
 */
export class GitHubScm implements Tools.ScmPort {
  constructor(
    private readonly workspace: ThreadWorkspace,
    private readonly host: PullRequestHost,
  ) {}

  commitAndPush(request: Tools.CommitRequest): Promise<Tools.CommitOutcome> {
    return commitAndPushBranch(this.workspace, request);
  }

  findOpenPullRequest(branch: string): Promise<Tools.PullRequestRef | null> {
    return this.host.findOpenPullRequest(branch);
  }

  openPullRequest(request: Tools.PullRequestDraft): Promise<Tools.PullRequestRef> {
    return this.host.openPullRequest(request);
  }

  updatePullRequest(number: number, request: Tools.PullRequestText): Promise<Tools.PullRequestRef> {
    return this.host.updatePullRequest(number, request);
  }
}
