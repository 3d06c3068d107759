import { extractIssueRefs, type IssueRef } from '../rules/linked-issues.js';
import type { IssueInfo, PrSource, PullRequestInfo } from '../pr/pr-source.js';

/**
 * The issues a PR is linked to: issues that cross-reference it on its timeline, and every issue
 * number its title or body mentions (see `extractIssueRefs`) that resolves to a real issue (not
 * a PR), open or closed. Order: timeline first, then text order; no duplicates.
 */
export async function findLinkedIssues(
  source: PrSource,
  pr: PullRequestInfo,
): Promise<IssueInfo[]> {
  const timeline = await source.timelineIssueRefs(pr.repo, pr.number);
  const text = extractIssueRefs(`${pr.title}\n${pr.body}`, pr.repo, pr.parentRepo);
  const seen = new Set<string>();
  const issues: IssueInfo[] = [];
  const candidates: IssueRef[] = [...timeline, ...text];
  for (const ref of candidates) {
    const key = `${ref.repo}#${ref.number}`;
    if (seen.has(key) || (ref.repo === pr.repo.toLowerCase() && ref.number === pr.number)) continue;
    seen.add(key);
    const issue = await source.getIssue(ref.repo, ref.number);
    if (issue) issues.push(issue);
  }
  return issues;
}
