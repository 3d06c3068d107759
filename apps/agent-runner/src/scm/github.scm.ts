import type { PullRequestHost } from '@caravel/integrations';
import type {
  CommitOutcome,
  CommitRequest,
  PullRequestDraft,
  PullRequestRef,
  PullRequestText,
  ScmPort,
} from '@caravel/tools';
import { LocalGitScm } from '../sandbox/local-git.scm.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';

/**
 * SCM for repositories on the configured GitHub: the commit is made in the sandbox and the
 * branch pushed by the broker (through its credential proxy, with an installation token the
 * sandbox never sees), exactly as for a plain git remote; pull requests are GitHub's drafts.
 */
export class GitHubScm implements ScmPort {
  private readonly git: LocalGitScm;

  constructor(
    workspace: ThreadWorkspace,
    private readonly host: PullRequestHost,
  ) {
    this.git = new LocalGitScm(workspace);
  }

  commitAndPush(request: CommitRequest): Promise<CommitOutcome> {
    return this.git.commitAndPush(request);
  }

  findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    return this.host.findOpenPullRequest(branch);
  }

  openDraftPullRequest(request: PullRequestDraft): Promise<PullRequestRef> {
    return this.host.openDraftPullRequest(request);
  }

  updatePullRequest(number: number, request: PullRequestText): Promise<PullRequestRef> {
    return this.host.updatePullRequest(number, request);
  }
}
