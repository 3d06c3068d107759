/** A reference to an issue found in a PR's text; `repo` is `owner/name`. */
export interface IssueRef {
  readonly repo: string;
  readonly number: number;
}

const URL_REF = /https?:\/\/github\.com\/([\w.-]+\/[\w.-]+)\/issues\/(\d+)/gi;
const REPO_REF = /(?<![\w/.-])([\w.-]+\/[\w.-]+)#(\d+)(?!\d)/g;
const BARE_REF = /(?<![\w/])#(\d+)(?!\d)/g;

function stripHtmlComments(text: string): string {
  return text.replace(/<!--[\s\S]*?-->/g, '');
}

/** `owner/repo` lowercased, the one key issue references are compared by. */
export function normalizeRepo(repo: string): string {
  return repo.trim().toLowerCase();
}

/**
 * Issue references in a PR's title and body, HTML comments removed: full issue URLs (any
 * repository), `owner/repo#n`, and every standalone `#n` (closing keywords included). A bare
 * number is tried in `repo` and, for a fork, in its `parent` too. Duplicates are dropped; the
 * order is the order of first appearance. Whether a number names an issue (not a PR) is for the
 * PR source to answer.
 */
export function extractIssueRefs(text: string, repo: string, parent?: string): IssueRef[] {
  const clean = stripHtmlComments(text);
  const found: IssueRef[] = [];
  const add = (r: string, n: string): void => {
    const ref = { repo: normalizeRepo(r), number: Number(n) };
    if (!found.some((f) => f.repo === ref.repo && f.number === ref.number)) found.push(ref);
  };
  for (const m of clean.matchAll(URL_REF)) add(m[1] ?? '', m[2] ?? '');
  const withoutUrls = clean.replace(URL_REF, ' ');
  for (const m of withoutUrls.matchAll(REPO_REF)) add(m[1] ?? '', m[2] ?? '');
  for (const m of withoutUrls.matchAll(BARE_REF)) {
    add(repo, m[1] ?? '');
    if (parent) add(parent, m[1] ?? '');
  }
  return found;
}
