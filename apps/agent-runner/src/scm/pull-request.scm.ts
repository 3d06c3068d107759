import { AppError } from '@caravel/errors';
import type * as Tools from '@caravel/tools';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { commitAndPushBranch } from './git.scm.js';

/** Reads the pull request as its code host has it now; null when it cannot be read. */
export type PullRequestNow = () => Promise<Tools.PullRequestDetails | null>;

/**
 * The SCM of a run asked on an open pull request whose branch it checked out: commits are pushed
 * to that branch (through the broker, as any push), so they land on the pull request; there is
 * never a second pull request, and the one there keeps the title and body its author wrote.
 *
 * A run takes minutes, and the pull request may be merged or closed meanwhile: a push to its
 * branch would then land on no pull request (and recreate a branch deleted at the merge) while
 * the agent said it updated one. So the pull request is read again before each commit, and one
 * no longer open refuses it, saying why; a read that fails lets the push go ahead as before.
 */
export class PullRequestScm implements Tools.ScmPort {
  private readonly ref: Tools.PullRequestRef;

  constructor(
    private readonly workspace: ThreadWorkspace,
    private readonly pull: Tools.PullRequestDetails,
    private readonly now: PullRequestNow = () => Promise.resolve(null),
  ) {
    this.ref = { number: pull.number, url: pull.url, draft: pull.draft };
  }

  async commitAndPush(request: Tools.CommitRequest): Promise<Tools.CommitOutcome> {
    const current = await this.now().catch(() => null);
    if (current && current.state !== 'open') {
      throw new AppError(
        'CONFLICT',
        `Pull request #${this.pull.number} was ${current.state} while you worked, so nothing was committed or pushed to its branch ${this.pull.head.ref}. Tell the person what you changed and that it is not on the pull request; asked again, a new pull request can carry it.`,
        { retryable: false, details: { pullRequest: this.pull.number, state: current.state } },
      );
    }
    return commitAndPushBranch(this.workspace, request);
  }

  findOpenPullRequest(branch: string): Promise<Tools.PullRequestRef | null> {
    return Promise.resolve(branch === this.pull.head.ref ? this.ref : null);
  }

  openPullRequest(_request: Tools.PullRequestDraft): Promise<Tools.PullRequestRef> {
    return Promise.resolve(this.ref);
  }

  updatePullRequest(
    _number: number,
    _request: Tools.PullRequestText,
  ): Promise<Tools.PullRequestRef> {
    return Promise.resolve(this.ref);
  }
}
