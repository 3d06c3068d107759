import type { IssueRef } from '../rules/linked-issues.js';

/** The facts of a pull request the pipeline uses (a subset of GitHub's pull request object). */
export interface PullRequestInfo {
  /** `owner/repo` of the base repository. */
  readonly repo: string;
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly merged: boolean;
  readonly mergedAt: string | null;
  readonly createdAt: string;
  readonly baseSha: string;
  readonly headSha: string;
  readonly baseRef: string;
  readonly mergeCommitSha: string | null;
  /** The base repository's clone URL, as the task's Dockerfile fetches it. */
  readonly cloneUrl: string;
  readonly htmlUrl: string;
  /** The fork's upstream `owner/repo`, when the base repository is a fork. */
  readonly parentRepo?: string;
}

/** One entry of the PR's file list; a rename is listed under its new name. */
export interface PrFile {
  readonly filename: string;
  readonly status: string;
  readonly previousFilename?: string;
}

/** An issue as the pipeline reads it. */
export interface IssueInfo {
  readonly repo: string;
  readonly number: number;
  readonly title: string;
  readonly body: string;
}

/**
 * Where pull requests come from: GitHub's REST API, or an injected source (a local clone plus a
 * JSON file) so the pipeline runs with no network.
 */
export interface PrSource {
  getPullRequest(repo: string, pr: number): Promise<PullRequestInfo>;
  /** The PR's complete file list (every page), in the API's order (sorted by path). */
  listFiles(repo: string, pr: number): Promise<PrFile[]>;
  /** The issue, or undefined when the number names a pull request or nothing at all. */
  getIssue(repo: string, issue: number): Promise<IssueInfo | undefined>;
  /** Issues that cross-reference the PR (from its timeline). */
  timelineIssueRefs(repo: string, pr: number): Promise<IssueRef[]>;
  /** Where git can fetch the repository from (a URL or a local path). */
  fetchUrl(pr: PullRequestInfo): string;
}
