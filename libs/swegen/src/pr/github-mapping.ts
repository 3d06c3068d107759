import { normalizeRepo, type IssueRef } from '../rules/linked-issues.js';
import type { GithubPull } from './pull-request.schema.js';
import type { PullRequestInfo } from './pr-source.js';
import type { z } from 'zod';
import type { githubTimelineEventSchema } from './pull-request.schema.js';

/** Maps GitHub's pull request object onto the pipeline's view of it. */
export function toPullRequestInfo(pull: GithubPull): PullRequestInfo {
  const parent = pull.base.repo.parent?.full_name;
  return {
    repo: pull.base.repo.full_name,
    number: pull.number,
    title: pull.title,
    body: pull.body ?? '',
    merged: pull.merged ?? Boolean(pull.merged_at),
    mergedAt: pull.merged_at ?? null,
    createdAt: pull.created_at,
    baseSha: pull.base.sha,
    headSha: pull.head.sha,
    baseRef: pull.base.ref,
    mergeCommitSha: pull.merge_commit_sha ?? null,
    cloneUrl: pull.base.repo.clone_url,
    htmlUrl: pull.html_url,
    ...(parent ? { parentRepo: parent } : {}),
  };
}

/** `https://api.github.com/repos/o/r` -> `o/r`. */
export function repoFromApiUrl(url: string): string | undefined {
  const match = /\/repos\/([^/]+\/[^/]+)\/?$/.exec(url);
  return match?.[1] ? normalizeRepo(match[1]) : undefined;
}

/** Issues (never PRs) that cross-reference a PR, from its timeline events. */
export function crossReferencedIssues(
  events: readonly z.infer<typeof githubTimelineEventSchema>[],
  repo: string,
): IssueRef[] {
  const refs: IssueRef[] = [];
  for (const event of events) {
    const issue = event.source?.issue;
    if (event.event !== 'cross-referenced' || event.source?.type !== 'issue' || !issue) continue;
    if (issue.pull_request !== undefined) continue;
    const from = issue.repository_url ? repoFromApiUrl(issue.repository_url) : undefined;
    refs.push({ repo: from ?? normalizeRepo(repo), number: issue.number });
  }
  return refs;
}
