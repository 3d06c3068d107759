import {
  instructionFiles,
  type InstructionFile,
  type PullRequestText,
  type ReviewBriefContent,
} from './review-context.js';
import {
  baseCommitOf,
  checkOutHead,
  diffOf,
  mergeBaseOf,
  reviewRangeFor,
  type ReviewDiff,
  type ReviewGit,
  type ReviewRange,
} from './review-git.js';

/** The pull request a review is prepared for. */
export interface ReviewTarget {
  owner: string;
  repo: string;
  number: number;
  headSha: string;
  /** The base branch; the repository's default when absent. */
  baseBranch?: string;
  /** The ledger's last reviewed head (null before the first review). */
  lastReviewedSha: string | null;
  /** The merge base the ledger's LEFT anchors refer to (null before the first review). */
  lastMergeBaseSha: string | null;
}

/** Where the text a review reads besides the code comes from (each may have nothing). */
export interface ReviewSources {
  /** The pull request's title, description and comments. */
  pullRequestText(): Promise<PullRequestText | null>;
  /** Standing instructions of the person who asked for the review (saved by them: guidance). */
  personInstructions(): Promise<string | null>;
  /** What the request asked the review to look at, relayed by the coding agent (untrusted). */
  requestInstructions(): Promise<string | null>;
  /** The repository's learned review style (the analyzer's), when one exists. */
  reviewStyle(): Promise<string | null>;
}

/** Everything a review run starts from, derived before any model call. */
export interface PreparedReview {
  headSha: string;
  mergeBaseSha: string;
  range: ReviewRange;
  /**
   * The whole pull request's diff (`merge-base...head`): where findings may be anchored, since
   * GitHub places comments on it, whichever range this run reads.
   */
  pullRequestDiff: ReviewDiff;
  /** The diff of `range`: what this run reads (the same as `pullRequestDiff` on a first review). */
  rangeDiff: ReviewDiff;
  instructions: InstructionFile[];
  /** How the code moved since the last review, when there was one at another head. */
  since: SinceLastReview | null;
  /**
   * The brief's parts: the opening message of the run is made of them once the ledger is synced
   * (`openingMessage`), with the untrusted pull request text.
   */
  briefContent: ReviewBriefContent;
}

/** The diffs that carry the ledger from the last reviewed head to this one (`reconcileFindings`). */
export interface SinceLastReview {
  fromSha: string;
  /** `git diff last..head` (two-dot), even after a force-push while the old head is present. */
  interDiff: ReviewDiff;
  /** `git diff <old merge base> <new merge base>` when the base moved (LEFT anchors follow it). */
  baseDiff: ReviewDiff | null;
}

/**
 * The deterministic preparation of a review, in order: the head checked out, the base branch's
 * commit and the merge base, the range (three-dot for a first review, two-dot since the last
 * reviewed head), both diffs and their changed-line sets, the base branch's instruction files,
 * then the brief's parts. Nothing here calls a model; the same inputs give the same review context.
 */
export async function prepareReview(
  git: ReviewGit,
  target: ReviewTarget,
  sources: ReviewSources,
): Promise<PreparedReview> {
  const { headSha } = target;
  await checkOutHead(git, headSha, target.number);
  const baseCommit = await baseCommitOf(git, target.baseBranch);
  const mergeBaseSha = await mergeBaseOf(git, baseCommit, headSha);
  const pullRequestDiff = await diffOf(git, {
    kind: 'pull_request',
    base: baseCommit,
    head: headSha,
  });
  const range = await reviewRangeFor(git, {
    base: baseCommit,
    head: headSha,
    lastReviewedSha: target.lastReviewedSha,
  });
  const rangeDiff = range.kind === 'pull_request' ? pullRequestDiff : await diffOf(git, range);
  const since = await sinceLastReview(git, target, mergeBaseSha, range, rangeDiff);
  const instructions = await instructionFiles(git, baseCommit, pullRequestDiff.lines);
  const [text, personInstructions, requestInstructions, reviewStyle] = await Promise.all([
    sources.pullRequestText(),
    sources.personInstructions(),
    sources.requestInstructions(),
    sources.reviewStyle(),
  ]);
  const briefContent: ReviewBriefContent = {
    pullRequest: target,
    headSha,
    range,
    changed: rangeDiff.lines,
    instructions,
    personInstructions,
    requestInstructions,
    reviewStyle,
    text,
  };
  return {
    headSha,
    mergeBaseSha,
    range,
    pullRequestDiff,
    rangeDiff,
    instructions,
    since,
    briefContent,
  };
}

async function sinceLastReview(
  git: ReviewGit,
  target: ReviewTarget,
  mergeBaseSha: string,
  range: ReviewRange,
  rangeDiff: ReviewDiff,
): Promise<SinceLastReview | null> {
  const { lastReviewedSha: from, lastMergeBaseSha: oldBase, headSha: head } = target;
  if (!from || from === head) return null;
  const present = (sha: string) => git.succeeds(['cat-file', '-e', `${sha}^{commit}`]);
  if (!(await present(from))) return null;
  const interDiff =
    range.kind === 'since_last_review'
      ? rangeDiff
      : await diffOf(git, { kind: 'since_last_review', from, head });
  const baseMoved = oldBase !== null && oldBase !== mergeBaseSha && (await present(oldBase));
  const baseDiff = baseMoved
    ? await diffOf(git, { kind: 'since_last_review', from: oldBase, head: mergeBaseSha })
    : null;
  return { fromSha: from, interDiff, baseDiff };
}

/** Sources with nothing to say (a review with no text, instructions or style). */
export const NO_REVIEW_SOURCES: ReviewSources = {
  pullRequestText: () => Promise.resolve(null),
  personInstructions: () => Promise.resolve(null),
  requestInstructions: () => Promise.resolve(null),
  reviewStyle: () => Promise.resolve(null),
};
