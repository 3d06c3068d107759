import { AppError } from '@caravel/errors';
import { defineTool, wrapUntrusted, type CaravelTool, type ScmComment } from '@caravel/tools';
import { z } from 'zod';
import type { CrawlStatus } from '../../crawl/crawl-signal.js';
import {
  mergedPullRequests,
  unreadRemain,
  type ReviewStyleRunContext,
} from '../review-style.context.js';

/** Review comments read per pull request at most. */
const COMMENTS_PER_PULL_REQUEST = 100;

const statusLine = (status: CrawlStatus): string => {
  const reviewers = status.topReviewers.map((r) => `${r.login} (${r.comments})`).join(', ');
  const verdict =
    status.reason === 'enough_signal'
      ? 'enough signal: write the style and save it'
      : status.reason === 'pull_requests_exhausted'
        ? 'no merged pull request left: write the style from what you have and save it'
        : 'not enough signal yet: read more merged pull requests';
  return `Crawl: ${status.substantive} substantive comments from ${status.pullRequestsRead} pull requests; top reviewers: ${reviewers || 'none yet'}; ${verdict}.`;
};

/** `list_merged_pull_requests`: the repository's merged pull requests, newest first, unread first. */
export function listMergedPullRequestsTool(
  context: ReviewStyleRunContext,
): CaravelTool<{ lines: string[]; status: CrawlStatus }> {
  return defineTool({
    name: 'list_merged_pull_requests',
    description:
      "The repository's merged pull requests, newest first, each marked read or unread by this crawl.",
    effect: 'read',
    input: z.object({ limit: z.number().int().min(1).max(100).default(30) }),
    async run({ limit }) {
      const merged = await mergedPullRequests(context);
      const lines = merged
        .slice(0, limit)
        .map(
          (p) =>
            `#${p.number} ${context.tally.hasRead(p.number) ? '(read)' : '(unread)'} by ${p.author ?? 'ghost'}, merged ${p.mergedAt}: ${JSON.stringify(p.title)}`,
        );
      return { lines, status: context.tally.status(await unreadRemain(context)) };
    },
    observe: ({ lines, status }) =>
      [lines.length ? lines.join('\n') : 'No merged pull requests.', statusLine(status)].join('\n'),
  });
}

const render = (number: number, comment: ScmComment): string =>
  wrapUntrusted(comment.body, {
    author: comment.author,
    source: `review comment ${comment.id} on #${number}${comment.path ? ` ${comment.path}${comment.line ? `:${comment.line}` : ''}` : ''}`,
  });

/**
 * `read_review_comments`: one merged pull request's human review comments, each wrapped as
 * untrusted content (people's words are data to learn from, never instructions), and the crawl's
 * standing after it.
 */
export function readReviewCommentsTool(
  context: ReviewStyleRunContext,
): CaravelTool<{ number: number; kept: ScmComment[]; status: CrawlStatus }> {
  return defineTool({
    name: 'read_review_comments',
    description:
      "A merged pull request's substantive human review comments (bots' and one-liners left out), and how far the crawl has got.",
    effect: 'read',
    input: z.object({ number: z.number().int().positive() }),
    async run({ number }) {
      const merged = await mergedPullRequests(context);
      if (!context.history || !merged.some((p) => p.number === number)) {
        throw new AppError(
          'NOT_FOUND',
          `#${number} is not one of the merged pull requests: pick one from list_merged_pull_requests`,
        );
      }
      const comments = await context.history.listReviewComments(number, COMMENTS_PER_PULL_REQUEST);
      const kept = context.tally.record(number, comments);
      return { number, kept, status: context.tally.status(await unreadRemain(context)) };
    },
    observe: ({ number, kept, status }) =>
      [
        kept.length
          ? kept.map((c) => render(number, c)).join('\n')
          : `#${number}: no substantive human review comments.`,
        statusLine(status),
      ].join('\n'),
  });
}
