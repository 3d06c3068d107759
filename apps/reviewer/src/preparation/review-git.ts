import { AppError } from '@caravel/errors';
import { changedLineSet, REVIEW_DIFF_FLAGS, type ChangedLineSet } from '@caravel/findings';

/**
 * Git in the checkout the reviewer reads (the review sandbox in production, a local repository in
 * tests). `run` answers git's exact standard output, never a shaped or elided one: diffs are
 * parsed line by line. A failing command rejects with an `AppError`.
 */
export interface ReviewGit {
  run(args: readonly string[]): Promise<string>;
  /** Whether the command succeeds (`merge-base --is-ancestor`, `cat-file -e`). */
  succeeds(args: readonly string[]): Promise<boolean>;
}

/**
 * What the reviewer reads this time. A first review (or one after a force-push that dropped the
 * reviewed head) reads the whole pull request: the three-dot diff `base...head`, from the merge
 * base, so commits that landed on the base branch meanwhile are not the author's. A re-review
 * reads only what was pushed since the last reviewed head: the two-dot diff `from..head`.
 */
export type ReviewRange =
  | { kind: 'pull_request'; base: string; head: string }
  | { kind: 'since_last_review'; from: string; head: string };

/** A diff and its changed-line set. */
export interface ReviewDiff {
  text: string;
  lines: ChangedLineSet;
}

const SHA = /^[0-9a-f]{40}$/;

/**
 * Makes `headSha` present and checked out (detached): a commit the checkout lacks is fetched from
 * its remote, the pull request's head ref included (a fork's commits are only there).
 *
 * @throws AppError `NOT_FOUND` when the remote does not have it either.
 */
export async function checkOutHead(git: ReviewGit, headSha: string, pullNumber: number) {
  if (!SHA.test(headSha)) throw new AppError('BAD_REQUEST', `not a commit sha: ${headSha}`);
  const present = () => git.succeeds(['cat-file', '-e', `${headSha}^{commit}`]);
  if (!(await present())) {
    await git.succeeds(['fetch', '--quiet', 'origin']);
    await git.succeeds([
      'fetch',
      '--quiet',
      'origin',
      `+refs/pull/${pullNumber}/head:refs/caravel/review/head`,
    ]);
  }
  if (!(await present())) {
    throw new AppError(
      'NOT_FOUND',
      `the pull request's head ${headSha} is not in the checkout nor on its remote`,
      { retryable: false },
    );
  }
  await git.run(['checkout', '--quiet', '--detach', headSha]);
}

/**
 * The base branch's commit as the checkout knows it: `origin/<base>` (the default branch when no
 * base is named), else a local branch of that name.
 */
export async function baseCommitOf(git: ReviewGit, baseBranch?: string): Promise<string> {
  const candidates = baseBranch
    ? [`refs/remotes/origin/${baseBranch}`, `refs/heads/${baseBranch}`]
    : ['refs/remotes/origin/HEAD', 'refs/heads/main', 'refs/heads/master'];
  for (const ref of candidates) {
    if (await git.succeeds(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`])) {
      return (await git.run(['rev-parse', `${ref}^{commit}`])).trim();
    }
  }
  throw new AppError(
    'NOT_FOUND',
    `the base branch ${baseBranch ?? '(default)'} is not in the review checkout`,
    { retryable: false },
  );
}

/** The merge base of the base branch and the head: where the pull request's changes start. */
export async function mergeBaseOf(git: ReviewGit, base: string, head: string): Promise<string> {
  return (await git.run(['merge-base', base, head])).trim();
}

/**
 * The range to review at `head`: since `lastReviewedSha` when it is an earlier commit of the
 * head's history, else the whole pull request from `base`.
 */
export async function reviewRangeFor(
  git: ReviewGit,
  input: { base: string; head: string; lastReviewedSha: string | null },
): Promise<ReviewRange> {
  const { base, head, lastReviewedSha } = input;
  if (
    lastReviewedSha &&
    lastReviewedSha !== head &&
    (await git.succeeds(['merge-base', '--is-ancestor', lastReviewedSha, head]))
  ) {
    return { kind: 'since_last_review', from: lastReviewedSha, head };
  }
  return { kind: 'pull_request', base, head };
}

/** The range's diff with the reviewer's flags: `base...head` or `from..head`. */
export async function diffOf(git: ReviewGit, range: ReviewRange): Promise<ReviewDiff> {
  const spec =
    range.kind === 'pull_request'
      ? `${range.base}...${range.head}`
      : `${range.from}..${range.head}`;
  const text = await git.run(['diff', ...REVIEW_DIFF_FLAGS, spec]);
  return { text, lines: changedLineSet(text) };
}

/** The text of `path` at `commit`, or null when the commit has no such file. */
export async function fileAt(git: ReviewGit, commit: string, path: string): Promise<string | null> {
  if (!(await git.succeeds(['cat-file', '-e', `${commit}:${path}`]))) return null;
  return git.run(['show', `${commit}:${path}`]);
}

/** Paths of `commit`'s tree whose file name is one of `names` (scoped instruction files). */
export async function filesNamed(
  git: ReviewGit,
  commit: string,
  names: readonly string[],
): Promise<string[]> {
  const listing = await git.run(['ls-tree', '-r', '--name-only', '-z', commit]);
  return listing
    .split('\0')
    .filter((path) => path !== '' && names.includes(path.split('/').pop() ?? ''))
    .sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}
