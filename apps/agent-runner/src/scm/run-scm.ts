import type { PullRequestHost } from '@caravel/integrations';
import type { PullRequestDetails, ScmPort, ScmReadPort } from '@caravel/tools';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { GitScm } from './git.scm.js';
import { GitHubScm } from './github.scm.js';
import { HeldScm } from './held.scm.js';
import { PullRequestScm } from './pull-request.scm.js';

/**
 * The SCM a run publishes through: GitHub's draft pull requests when its repository is on the
 * configured GitHub and the App can act there (`host`, from the run's integrations), else a plain
 * pushed branch.
 */
export function scmForRun(workspace: ThreadWorkspace, host: PullRequestHost | null): ScmPort {
  return host ? new GitHubScm(workspace, host) : new GitScm(workspace);
}

/**
 * The SCM of attempt `index` of a retry-and-select run: it publishes nothing, and holds what the
 * attempt asked to publish until the attempts are compared (only the winner's is published, then
 * through {@link scmForRun} in the thread's own sandbox).
 */
export function scmForAttempt(workspace: ThreadWorkspace, index: number): HeldScm {
  return new HeldScm(workspace, `attempt ${index}`);
}

/**
 * The SCM of a run on an open pull request's own branch, reading the pull request again before
 * each commit through `reader` (the run's GitHub reader; without one, it is not read again).
 */
export function scmOnPullRequestBranch(
  workspace: ThreadWorkspace,
  pull: PullRequestDetails,
  reader: Pick<ScmReadPort, 'getPullRequest'> | null,
): PullRequestScm {
  return new PullRequestScm(
    workspace,
    pull,
    reader ? () => reader.getPullRequest(pull.number) : undefined,
  );
}
