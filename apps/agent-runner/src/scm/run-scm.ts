import type { EnvelopeOf, StartRunV1 } from '@caravel/contracts';
import type { PullRequestHost } from '@caravel/integrations';
import type { PullRequestDetails, ScmPort, ScmReadPort } from '@caravel/tools';
import type { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { ForkPullRequestScm } from './fork-pull-request.scm.js';
import { GitScm } from './git.scm.js';
import { GitHubScm } from './github.scm.js';
import { HeldScm } from './held.scm.js';
import { ProvenanceScm } from './pull-request-provenance.js';
import { PullRequestScm } from './pull-request.scm.js';
import { forkPullRequestOpened, type RunSubject } from './run-subject.js';

/** What decides where a single run publishes. */
export interface RunScmChoice {
  run: EnvelopeOf<typeof StartRunV1>['data'];
  workspace: ThreadWorkspace;
  subject: RunSubject;
  /** The pull request whose head branch the sandbox has checked out, if any. */
  onItsBranch: PullRequestDetails | null;
  /** The run's GitHub, asked only for what the choice needs. */
  github: Pick<RunIntegrationsService, 'scmReader' | 'pullRequestHost'>;
  /** Tells the person who asked (that a fork's new pull request is open). */
  tell: (text: string) => Promise<void>;
}

/**
 * Where a single run publishes: the pull request's own branch when it is checked out; for a
 * fork's pull request a new pull request against its base (the person who asked is told once it
 * is open); else the thread's branch and its pull request. Its own pull request's body ends with
 * who asked and where ({@link ProvenanceScm}).
 */
export function scmOfRun(choice: RunScmChoice): ScmPort {
  const { run, workspace, subject, onItsBranch, github } = choice;
  if (onItsBranch) return scmOnPullRequestBranch(workspace, onItsBranch, github.scmReader(run));
  const scm = new ProvenanceScm(scmForRun(workspace, github.pullRequestHost(run)), run);
  if (subject.kind !== 'fork') return scm;
  return new ForkPullRequestScm(scm, subject.pull, (opened) =>
    choice.tell(forkPullRequestOpened(subject.pull, opened)),
  );
}

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
