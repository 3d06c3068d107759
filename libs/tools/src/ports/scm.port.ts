/**
 * The source-control operations behind `commit_and_open_pr`, bound to one thread: the adapter
 * knows the repository and the thread's branch. The GitHub implementation lives with the
 * triggers; tests use a fake.
 */
export interface ScmPort {
  /**
   * Stages every change in the working tree, commits it with `message` on the thread's branch and
   * pushes the branch. With nothing to commit it still pushes (a previous attempt may have
   * committed without pushing) and reports `commitSha: null`.
   */
  commitAndPush(request: CommitRequest): Promise<CommitOutcome>;
  /** The open pull request whose head is `branch`, if any. */
  findOpenPullRequest(branch: string): Promise<PullRequestRef | null>;
  /**
   * Opens a pull request from `branch` to the repository's default branch: a draft unless the
   * request says `draft: false` (ready for review).
   */
  openDraftPullRequest(request: PullRequestDraft): Promise<PullRequestRef>;
  /** Replaces the title and body of an existing pull request. */
  updatePullRequest(number: number, request: PullRequestText): Promise<PullRequestRef>;
}

/** A commit to make. */
export interface CommitRequest {
  message: string;
}

/** What `commitAndPush` did. */
export interface CommitOutcome {
  branch: string;
  /** The new commit, or null when the working tree had nothing to commit. */
  commitSha: string | null;
}

/** A pull request's title and body. */
export interface PullRequestText {
  title: string;
  body: string;
}

/** A pull request to open. */
export interface PullRequestDraft extends PullRequestText {
  branch: string;
  /** False opens it ready for review; a draft by default (the requester's preference decides). */
  draft?: boolean;
}

/** A pull request as the SCM reports it. */
export interface PullRequestRef {
  number: number;
  url: string;
  draft: boolean;
}
