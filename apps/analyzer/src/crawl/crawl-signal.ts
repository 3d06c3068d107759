import { isOwnPeople, type ScmComment } from '@caravel/tools';

/** Substantive human review comments a bootstrap needs before it may write a style. */
export const MIN_SUBSTANTIVE_COMMENTS = 8;
/** How many of the most active reviewers the style is drawn from. */
export const TOP_REVIEWERS = 5;
/** A comment shorter than this (in words) says too little to learn from ("LGTM", "nit: typo"). */
const MIN_WORDS = 5;

const wordsOf = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/**
 * Whether a review comment carries review style worth learning from: a person's (not a bot's,
 * not Caravel's own), one of the repository's own people when the host says how the author
 * relates to it (anyone may comment on a public repository's pull requests, and the style learnt
 * becomes the reviewer's guidance), and more than a few words.
 */
export function isSubstantive(comment: ScmComment, botLogin: string): boolean {
  if (comment.bot || comment.author.toLowerCase() === botLogin.toLowerCase()) return false;
  if (comment.association !== undefined && !isOwnPeople(comment.association)) return false;
  return wordsOf(comment.body) >= MIN_WORDS;
}

/** A comment the crawl kept, with the pull request it was on. */
export interface CrawledComment {
  pullRequest: number;
  comment: ScmComment;
}

/** Where a crawl stands: what it read and whether it may stop. */
export interface CrawlStatus {
  pullRequestsRead: number;
  substantive: number;
  topReviewers: { login: string; comments: number }[];
  /** Enough signal (≥ {@link MIN_SUBSTANTIVE_COMMENTS}), or no merged pull request left. */
  done: boolean;
  reason: 'enough_signal' | 'pull_requests_exhausted' | 'needs_more';
}

/**
 * The crawl's tally: pull requests read and their substantive comments. The stopping rule is
 * {@link CrawlTally.status}: the crawl goes on until it holds enough substantive comments or the
 * merged pull requests run out.
 */
export class CrawlTally {
  private readonly read = new Set<number>();
  private readonly kept: CrawledComment[] = [];

  constructor(private readonly botLogin: string) {}

  /** Records one pull request's review comments; returns the substantive ones. */
  record(pullRequest: number, comments: readonly ScmComment[]): ScmComment[] {
    if (this.read.has(pullRequest)) return [];
    this.read.add(pullRequest);
    const substantive = comments.filter((c) => isSubstantive(c, this.botLogin));
    this.kept.push(...substantive.map((comment) => ({ pullRequest, comment })));
    return substantive;
  }

  hasRead(pullRequest: number): boolean {
    return this.read.has(pullRequest);
  }

  /** The comments kept, from the top reviewers only. */
  comments(): CrawledComment[] {
    const top = new Set(this.topReviewers().map((r) => r.login));
    return this.kept.filter((c) => top.has(c.comment.author));
  }

  pullRequests(): number[] {
    return [...this.read].sort((a, b) => a - b);
  }

  /** The most active reviewers by substantive comments (ties by login), at most {@link TOP_REVIEWERS}. */
  topReviewers(): { login: string; comments: number }[] {
    const counts = new Map<string, number>();
    for (const { comment } of this.kept) {
      counts.set(comment.author, (counts.get(comment.author) ?? 0) + 1);
    }
    return [...counts]
      .map(([login, comments]) => ({ login, comments }))
      .sort((a, b) => b.comments - a.comments || a.login.localeCompare(b.login))
      .slice(0, TOP_REVIEWERS);
  }

  /** The stopping rule, given whether unread merged pull requests remain. */
  status(unreadRemain: boolean): CrawlStatus {
    const substantive = this.kept.length;
    const reason =
      substantive >= MIN_SUBSTANTIVE_COMMENTS
        ? 'enough_signal'
        : unreadRemain
          ? 'needs_more'
          : 'pull_requests_exhausted';
    return {
      pullRequestsRead: this.read.size,
      substantive,
      topReviewers: this.topReviewers(),
      done: reason !== 'needs_more',
      reason,
    };
  }
}
