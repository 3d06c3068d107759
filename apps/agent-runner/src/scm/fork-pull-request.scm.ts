import type * as Tools from '@caravel/tools';
import { AppError } from '@caravel/errors';
import { findAppError } from '@caravel/middleware/errors';
import { ForwardingScm } from './forwarding.scm.js';
import { forkHeadRefused, forkPullRequestNote } from './run-subject.js';

/**
 * The SCM of a run asked on a fork's pull request (whose branch the App cannot push to): the
 * run's own branch, started at that pull request's head, is pushed to the thread's repository as
 * any run's (`scm`), and published as a new pull request against the fork pull request's base,
 * its body saying which pull request it builds on. `onOpened` hears of it once it is open (the
 * run tells the person who asked, where they asked).
 */
export class ForkPullRequestScm extends ForwardingScm {
  constructor(
    scm: Tools.ScmPort,
    private readonly pull: Tools.PullRequestDetails,
    private readonly onOpened: (opened: Tools.PullRequestRef) => Promise<void>,
  ) {
    super(scm);
  }

  override async openPullRequest(request: Tools.PullRequestDraft): Promise<Tools.PullRequestRef> {
    const opened = await this.inner.openPullRequest({
      ...request,
      body: this.noted(request.body),
      ...(this.pull.base.ref ? { base: this.pull.base.ref } : {}),
    });
    await this.onOpened(opened);
    return opened;
  }

  override updatePullRequest(
    number: number,
    request: Tools.PullRequestText,
  ): Promise<Tools.PullRequestRef> {
    return this.inner.updatePullRequest(number, { ...request, body: this.noted(request.body) });
  }

  /** The body the agent wrote, then where the branch comes from (said once, whatever it wrote). */
  private noted(body: string): string {
    const note = forkPullRequestNote(this.pull);
    if (body.includes(note)) return body;
    return body.trim() ? `${body.trimEnd()}\n\n---\n${note}` : note;
  }
}

/**
 * The sandbox of a run on a fork's pull request. When the broker would not start at its head
 * (the repository lacks `refs/pull/<N>/head`, or its commits change the CI), `tell` says why to
 * the person who asked and the run ends without a sandbox (`exit_forfeit`).
 */
export async function forkWorkspace<T>(
  acquiring: Promise<T>,
  pull: Tools.PullRequestDetails,
  tell: (text: string) => Promise<void>,
): Promise<T> {
  try {
    return await acquiring;
  } catch (cause) {
    const refused = forkHeadRefused(pull, findAppError(cause)?.details ?? {});
    if (refused === null) throw cause;
    await tell(refused);
    throw new AppError('FORBIDDEN', `pull request #${pull.number}'s head cannot be built on`, {
      retryable: false,
      cause,
      details: { reason: 'fork_head_refused', exitReason: 'exit_forfeit' },
    });
  }
}
