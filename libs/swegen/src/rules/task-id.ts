/**
 * The task id of a PR: `owner__repo-N`, lowercased everywhere (image names must be lowercase,
 * and one spelling keeps every "does the task exist" check consistent).
 */
export function taskIdFor(repo: string, pr: number): string {
  return `${repo.toLowerCase().replace('/', '__')}-${pr}`;
}

/** The dedupe key of a PR in `create.jsonl`: `owner/repo#N`, the repository lowercased. */
export function dedupeKeyFor(repo: string, pr: number): string {
  return `${repo.toLowerCase()}#${pr}`;
}

const REPO_NAME = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** Whether `value` looks like `owner/repo`. */
export function isRepoName(value: string): boolean {
  return REPO_NAME.test(value) && !value.includes('..');
}
