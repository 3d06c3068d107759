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
  openPullRequest(request: PullRequestDraft): Promise<PullRequestRef>;
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
  /** The branch it asks to merge into; the repository's default branch when absent. */
  base?: string;
}

/** A pull request as the SCM reports it. */
export interface PullRequestRef {
  number: number;
  url: string;
  draft: boolean;
  /**
   * Set when there is no pull request and this stands for one (`number` is then 0): `branch`, the
   * repository's remote has no pull requests (a local path or a plain git URL), so the pushed
   * branch is the result; `held`, an attempt of retry-and-select, whose commit stays in its
   * sandbox and whose pull request is opened only if the attempt is selected.
   */
  standIn?: 'branch' | 'held';
}

/** A branch end of a pull request: its head may live in a fork (`repository`), or in none left. */
export interface PullRequestBranch {
  ref: string;
  sha: string;
  /** The repository holding the branch; null when its fork was deleted. */
  repository: { owner: string; name: string } | null;
}

/** GitHub's `author_association`s of a repository's own people (its owner, members, collaborators). */
const OWN_PEOPLE = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

/**
 * Whether an author is one of the repository's own people, by the association the host gave;
 * false for anyone else (`NONE`, `CONTRIBUTOR`, a first-timer) and when the host said nothing.
 */
export function isOwnPeople(association: string | undefined): boolean {
  return association !== undefined && OWN_PEOPLE.has(association);
}

/** A pull request as the code host reports it now. */
export interface PullRequestDetails {
  number: number;
  title: string;
  body: string;
  author: string | null;
  /** How the author relates to the repository, when the host says (see {@link ScmComment}). */
  association?: string;
  state: string;
  draft: boolean;
  url: string;
  head: PullRequestBranch;
  base: { ref: string; sha: string };
  /**
   * Whether it merges into its base cleanly (false: a merge conflict); null while the host is
   * still working it out; absent when the host does not say.
   */
  mergeable?: boolean | null;
  /** Size of the change, when the host reports it. */
  changedFiles?: number;
  additions?: number;
  deletions?: number;
}

/** An issue as the code host reports it now. */
export interface IssueDetails {
  number: number;
  title: string;
  body: string;
  author: string | null;
  state: string;
  labels: string[];
  url: string;
  /** GitHub numbers pull requests as issues: true when this one is a pull request. */
  pullRequest: boolean;
}

/** A comment on a pull request or issue: conversation or, with `path`, on a line of the diff. */
export interface ScmComment {
  id: number;
  author: string;
  body: string;
  bot: boolean;
  /**
   * How the author relates to the repository, when the host says (GitHub's `author_association`:
   * `OWNER`, `MEMBER`, `COLLABORATOR`, `CONTRIBUTOR`, `NONE`, …).
   */
  association?: string;
  at?: string;
  url?: string;
  path?: string;
  line?: number;
  /** A review comment answering another: the thread it belongs to. */
  inReplyTo?: number;
}

/** A changed file of a pull request, with its patch when the host gives one. */
export interface ScmChangedFile {
  path: string;
  status: string;
  additions: number;
  deletions: number;
  patch?: string;
}

/**
 * The read side of the SCM, for one repository: what the agent (and the runner, before the
 * run) reads about the pull request or issue it was asked on. Comments and bodies are written by
 * anyone who can comment; whoever shows them to a model marks them untrusted.
 */
export interface ScmReadPort {
  getPullRequest(number: number): Promise<PullRequestDetails>;
  listPullRequestFiles(number: number, limit: number): Promise<ScmChangedFile[]>;
  /** Review comments (on lines of the diff), oldest first, at most `limit`. */
  listReviewComments(number: number, limit: number): Promise<ScmComment[]>;
  getIssue(number: number): Promise<IssueDetails>;
  /** Conversation comments of an issue or pull request, oldest first, at most `limit`. */
  listIssueComments(number: number, limit: number): Promise<ScmComment[]>;
}

/** A merged pull request, as a crawl of a repository's history lists it. */
export interface MergedPullRequest {
  number: number;
  title: string;
  author: string | null;
  mergedAt: string;
  url: string;
}

/**
 * A repository's review history, read-only (the analyzer's crawl): merged pull requests, newest
 * first, and their review comments. Comment text is anyone's; whoever shows it to a model marks it
 * untrusted.
 */
export interface ScmHistoryPort {
  /** Merged pull requests, newest first, at most `limit`. */
  listMergedPullRequests(limit: number): Promise<MergedPullRequest[]>;
  /** Review comments (on lines of the diff), oldest first, at most `limit`. */
  listReviewComments(number: number, limit: number): Promise<ScmComment[]>;
}
