import type {
  CommitOutcome,
  CommitRequest,
  PullRequestDraft,
  PullRequestRef,
  PullRequestText,
  ScmPort,
} from '@caravel/tools';

/**
 * An SCM that passes every call to `inner`: the base of the SCMs that change one part of
 * publishing (a fork's pull request's base and note, the body's provenance) and leave the rest.
 */
export class ForwardingScm implements ScmPort {
  constructor(protected readonly inner: ScmPort) {}

  commitAndPush(request: CommitRequest): Promise<CommitOutcome> {
    return this.inner.commitAndPush(request);
  }

  findOpenPullRequest(branch: string): Promise<PullRequestRef | null> {
    return this.inner.findOpenPullRequest(branch);
  }

  openPullRequest(request: PullRequestDraft): Promise<PullRequestRef> {
    return this.inner.openPullRequest(request);
  }

  updatePullRequest(number: number, request: PullRequestText): Promise<PullRequestRef> {
    return this.inner.updatePullRequest(number, request);
  }
}
