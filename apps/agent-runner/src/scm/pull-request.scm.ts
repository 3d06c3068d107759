import type {
  CommitOutcome,
  CommitRequest,
  PullRequestDetails,
  PullRequestDraft,
  PullRequestRef,
  PullRequestText,
  ScmPort,
} from '@caravel/tools';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { commitAndPushBranch } from './git.scm.js';

/**
 * The SCM of a run asked on an open pull request whose branch it checked out: commits are pushed
 * to that branch (through the broker, as any push), so they land on the pull request; there is
 * never a second pull request, and the one there keeps the title and body its author wrote.
 */
export class PullRequestScm implements ScmPort {
  private readonly ref: PullRequestRef;

  constructor(
    private readonly workspace: ThreadWorkspace,
    private readonly pull: PullRequestDetails,
  ) {
    this.ref = { number: pull.number, url: pull.url, draft: pull.draft };
  }

  commitAndPush(request: CommitRequest): Promise<CommitOutcome> {
    return commitAndPushBranch(this.workspace, request);
  }

  findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    return Promise.resolve(branch === this.pull.head.ref ? this.ref : null);
  }

  openPullRequest(_request: PullRequestDraft): Promise<PullRequestRef> {
    return Promise.resolve(this.ref);
  }

  updatePullRequest(_number: number, _request: PullRequestText): Promise<PullRequestRef> {
    return Promise.resolve(this.ref);
  }
}
