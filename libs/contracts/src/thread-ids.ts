import { CARAVEL_NAMESPACE, uuidV5 } from './ids.js';

/**
 * Deterministic thread ids: a UUIDv5 (under {@link CARAVEL_NAMESPACE}) of an explicit key per
 * source. Every key starts with its kind (`github:`, `slack:`, ...), so two kinds never share a
 * key and therefore never an id. See docs/thread-ids.md for the keys and worked examples.
 */

/** A GitHub pull request or issue (they share one number space per repository). */
export interface GithubThreadRef {
  owner: string;
  repo: string;
  number: number;
}

/** A commit of a repository, for CI events that name no pull request yet. */
export interface GithubCommitRef {
  owner: string;
  repo: string;
  sha: string;
}

/** A Slack conversation: the root message's `ts` (`thread_ts`, or `ts` for a new thread). */
export interface SlackThreadRef {
  team: string;
  channel: string;
  threadTs: string;
}

/** A Jira issue on one site; `issueId` is Jira's numeric id, which survives a project move. */
export interface JiraThreadRef {
  site: string;
  issueId: string;
}

/**
 * A conversation under a Confluence page: the comment thread rooted at `rootCommentId` (a
 * top-level comment is its own root). `site` is the Confluence host (`acme.atlassian.net`) or
 * its base URL (`https://acme.atlassian.net/wiki`), of which only the host counts.
 */
export interface ConfluenceThreadRef {
  site: string;
  pageId: string;
  rootCommentId: string;
}

function required(kind: string, parts: Record<string, string | number>): void {
  for (const name in parts) {
    if (String(parts[name]).trim() === '') throw new Error(`${kind} thread key needs a ${name}`);
  }
}

/** `github:<owner>/<repo>#<number>`, owner and repo lower-cased (GitHub ignores their case). */
export function githubThreadKey(ref: GithubThreadRef): string {
  required('github', { owner: ref.owner, repo: ref.repo });
  if (!Number.isInteger(ref.number) || ref.number <= 0) {
    throw new Error(`github thread key needs a positive number, got ${ref.number}`);
  }
  return `github:${ref.owner.toLowerCase()}/${ref.repo.toLowerCase()}#${ref.number}`;
}

/** The thread of a GitHub pull request or issue. */
export function githubThreadId(ref: GithubThreadRef): string {
  return uuidV5(githubThreadKey(ref), CARAVEL_NAMESPACE);
}

/** `github-commit:<owner>/<repo>@<sha>` (sha lower-cased). */
export function githubCommitThreadKey(ref: GithubCommitRef): string {
  required('github-commit', { owner: ref.owner, repo: ref.repo, sha: ref.sha });
  return `github-commit:${ref.owner.toLowerCase()}/${ref.repo.toLowerCase()}@${ref.sha.toLowerCase()}`;
}

/** Where a CI event for a commit with no pull request is filed until one claims the commit. */
export function githubCommitThreadId(ref: GithubCommitRef): string {
  return uuidV5(githubCommitThreadKey(ref), CARAVEL_NAMESPACE);
}

/**
 * `github-review:<owner>/<repo>#<number>`: the reviewer's thread of a pull request, apart from the
 * coding thread of the same pull request (reviews and fixes never share a history).
 */
export function githubReviewThreadKey(ref: GithubThreadRef): string {
  return `github-review:${githubThreadKey(ref).slice('github:'.length)}`;
}

/** The reviewer's thread of a GitHub pull request. */
export function githubReviewThreadId(ref: GithubThreadRef): string {
  return uuidV5(githubReviewThreadKey(ref), CARAVEL_NAMESPACE);
}

/** `slack:<team>:<channel>:<thread_ts>`. */
export function slackThreadKey(ref: SlackThreadRef): string {
  required('slack', { team: ref.team, channel: ref.channel, threadTs: ref.threadTs });
  return `slack:${ref.team}:${ref.channel}:${ref.threadTs}`;
}

/** The thread of a Slack conversation. */
export function slackThreadId(ref: SlackThreadRef): string {
  return uuidV5(slackThreadKey(ref), CARAVEL_NAMESPACE);
}

/** `linear:issue:<issue uuid>` (Linear's id, not the `ENG-123` identifier, which can change). */
export function linearThreadKey(issueId: string): string {
  required('linear', { issueId });
  return `linear:issue:${issueId.toLowerCase()}`;
}

/** The thread of a Linear issue. */
export function linearThreadId(issueId: string): string {
  return uuidV5(linearThreadKey(issueId), CARAVEL_NAMESPACE);
}

/** `jira:<site>:<issue id>`, site lower-cased (`acme.atlassian.net`). */
export function jiraThreadKey(ref: JiraThreadRef): string {
  required('jira', { site: ref.site, issueId: ref.issueId });
  return `jira:${ref.site.toLowerCase()}:${ref.issueId}`;
}

/** The thread of a Jira issue. */
export function jiraThreadId(ref: JiraThreadRef): string {
  return uuidV5(jiraThreadKey(ref), CARAVEL_NAMESPACE);
}

/** The host of a site given as a host or as a URL, lower-cased. */
function siteHost(site: string): string {
  const trimmed = site.trim();
  const host = trimmed.includes('://') ? new URL(trimmed).host : trimmed;
  return host.toLowerCase();
}

/**
 * `confluence:<site host>:<page id>:<root comment id>`, host lower-cased: one thread per comment
 * thread under a page, so replies to one comment share a thread and two comment threads on one
 * page do not.
 */
export function confluenceThreadKey(ref: ConfluenceThreadRef): string {
  required('confluence', { site: ref.site, pageId: ref.pageId, rootCommentId: ref.rootCommentId });
  return `confluence:${siteHost(ref.site)}:${ref.pageId}:${ref.rootCommentId}`;
}

/** The thread of a comment thread under a Confluence page. */
export function confluenceThreadId(ref: ConfluenceThreadRef): string {
  return uuidV5(confluenceThreadKey(ref), CARAVEL_NAMESPACE);
}

/** A repository on GitHub, for threads about the repository as a whole. */
export interface GithubRepositoryRef {
  owner: string;
  repo: string;
}

/**
 * `<owner>/<repo>/review-style`, lower-cased: the analyzer's thread of a repository, where its
 * review style is learned (bootstrap and nightly runs). No other kind's key has this shape (they
 * all start with `<kind>:`, and an owner holds no colon).
 */
export function reviewStyleThreadKey(ref: GithubRepositoryRef): string {
  required('review-style', { owner: ref.owner, repo: ref.repo });
  return `${ref.owner.toLowerCase()}/${ref.repo.toLowerCase()}/review-style`;
}

/** The analyzer's thread of a repository (its review style). */
export function reviewStyleThreadId(ref: GithubRepositoryRef): string {
  return uuidV5(reviewStyleThreadKey(ref), CARAVEL_NAMESPACE);
}
