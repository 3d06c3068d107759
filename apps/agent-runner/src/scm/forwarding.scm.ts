import type * as Tools from '@caravel/tools';

/**
 * An SCM that passes every call to `inner`: the base of the SCMs that change one part of
 * publishing (a fork's pull request's base and note, the body's provenance) and leave the rest.
 */
export class ForwardingScm implements Tools.ScmPort {
  constructor(protected readonly inner: Tools.ScmPort) {}

  commitAndPush(request: Tools.CommitRequest): Promise<Tools.CommitOutcome> {
    return this.inner.commitAndPush(request);
  }

  findOpenPullRequest(branch: string): Promise<Tools.PullRequestRef | null> {
    return this.inner.findOpenPullRequest(branch);
  }

  openPullRequest(request: Tools.PullRequestDraft): Promise<Tools.PullRequestRef> {
    return this.inner.openPullRequest(request);
  }

  updatePullRequest(number: number, request: Tools.PullRequestText): Promise<Tools.PullRequestRef> {
    return this.inner.updatePullRequest(number, request);
  }
}
