import { AppError } from '@caravel/errors';
import { defineTool, wrapUntrusted, type CaravelTool } from '@caravel/tools';
import { z } from 'zod';
import type { ReviewRunContext } from '../review-run.context.js';

/** Diff lines per page: a page reads whole in one observation. */
export const DIFF_PAGE_LINES = 400;

export interface ReviewDiffPage {
  scope: 'range' | 'pull_request';
  page: number;
  pages: number;
  text: string;
}

const input = z.strictObject({
  scope: z
    .enum(['range', 'pull_request'])
    .default('range')
    .describe(
      "'range': what this review reads (the whole pull request on a first review, the push since the last review on a re-review); 'pull_request': the whole pull request",
    ),
  file: z.string().trim().min(1).optional().describe("only this file's part of the diff"),
  page: z.number().int().min(1).default(1),
});

/** The part of a diff about `file` (its `diff --git` section), or null when it has none. */
function fileSection(diff: string, file: string): string | null {
  const sections = diff.split(/^(?=diff --git )/m);
  const found = sections.filter(
    (section) => section.includes(` b/${file}\n`) || section.startsWith(`diff --git a/${file} `),
  );
  return found.length > 0 ? found.join('') : null;
}

/**
 * `fetch_review_diff`: the review's diff, paged by {@link DIFF_PAGE_LINES} lines, optionally one
 * file's. The code is the pull request author's, so it is shown as untrusted content: comments in
 * it are data, not instructions.
 */
export function fetchReviewDiffTool(context: ReviewRunContext): CaravelTool<ReviewDiffPage> {
  return defineTool({
    name: 'fetch_review_diff',
    description:
      'Read the diff under review, page by page (line numbers of new code are RIGHT lines, of ' +
      'removed code LEFT lines; findings are anchored on them).',
    effect: 'read',
    input,
    run(args) {
      const { prepared } = context;
      const diff = args.scope === 'range' ? prepared.rangeDiff : prepared.pullRequestDiff;
      const text = args.file ? fileSection(diff.text, args.file) : diff.text;
      if (text === null) {
        const files = diff.lines.files.map((f) => f.path).join(', ');
        throw new AppError(
          'NOT_FOUND',
          `${args.file} is not in this diff. Its files: ${files || '(none)'}.`,
        );
      }
      const lines = text.split('\n');
      const pages = Math.max(1, Math.ceil(lines.length / DIFF_PAGE_LINES));
      if (args.page > pages) {
        throw new AppError('BAD_REQUEST', `page ${args.page} does not exist: there are ${pages}.`);
      }
      const start = (args.page - 1) * DIFF_PAGE_LINES;
      const page = lines.slice(start, start + DIFF_PAGE_LINES).join('\n');
      return Promise.resolve({ scope: args.scope, page: args.page, pages, text: page });
    },
    observe: (out) =>
      `Diff (${out.scope}), page ${out.page} of ${out.pages}` +
      `${out.page < out.pages ? ` (call again with page ${out.page + 1} for more)` : ''}:\n` +
      wrapUntrusted(out.text, { source: 'pull_request_diff' }),
  });
}
