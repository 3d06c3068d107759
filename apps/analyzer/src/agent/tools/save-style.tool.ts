import type { NewReviewStyle, ReviewStyleRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { defineTool, type CaravelTool } from '@caravel/tools';
import { z } from 'zod';
import { unreadRemain, type ReviewStyleRunContext } from '../review-style.context.js';

/** The length a saved style prompt must have, in words. */
export const STYLE_WORDS = { min: 400, max: 1_200 } as const;
const SUMMARY_MAX_CHARS = 600;

/** Words in a text, as the limits count them (runs of non-space). */
export const countWords = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/**
 * The prompt's word count, or a `BAD_REQUEST` the model can act on: how long it is, the range,
 * and which way to go.
 */
export function checkStylePrompt(prompt: string): number {
  const words = countWords(prompt);
  if (words < STYLE_WORDS.min || words > STYLE_WORDS.max) {
    const fix =
      words < STYLE_WORDS.min
        ? `add ${STYLE_WORDS.min - words} or more words of repository-specific guidance`
        : `cut ${words - STYLE_WORDS.max} or more words`;
    throw new AppError(
      'BAD_REQUEST',
      `The review style prompt is ${words} words; it must be ${STYLE_WORDS.min}-${STYLE_WORDS.max} words: ${fix}, then call save_review_style_prompt again. Nothing was saved.`,
      { details: { words, ...STYLE_WORDS } },
    );
  }
  return words;
}

const input = z.object({
  prompt: z
    .string()
    .trim()
    .min(1)
    .describe(`The review style prompt, ${STYLE_WORDS.min}-${STYLE_WORDS.max} words`),
  summary: z
    .string()
    .trim()
    .min(1)
    .max(SUMMARY_MAX_CHARS)
    .describe('What the style says, in two or three sentences, for the people who read it'),
});

/** The provenance of a version: what the run read (a crawl, or findings' outcomes). */
function provenanceOf(
  context: ReviewStyleRunContext,
): Pick<NewReviewStyle, 'pullRequests' | 'commentIds' | 'reviewers' | 'counts'> {
  if (context.mode === 'continual') {
    const pullRequests = [...new Set(context.outcomes.map((o) => o.number))].sort((a, b) => a - b);
    const reviewers = context.current?.reviewers ?? [];
    return {
      pullRequests,
      commentIds: context.outcomes.map((o) => o.id),
      reviewers,
      counts: {
        pullRequests: pullRequests.length,
        comments: 0,
        reviewers: reviewers.length,
        outcomes: context.outcomes.length,
      },
    };
  }
  const comments = context.tally.comments();
  const reviewers = context.tally.topReviewers().map((r) => r.login);
  const pullRequests = context.tally.pullRequests();
  return {
    pullRequests,
    commentIds: comments.map((c) => String(c.comment.id)),
    reviewers,
    counts: {
      pullRequests: pullRequests.length,
      comments: comments.length,
      reviewers: reviewers.length,
    },
  };
}

/** Refuses a save the run may not make yet (or again), saying what to do instead. */
async function checkMaySave(context: ReviewStyleRunContext): Promise<void> {
  if (context.saved) {
    throw new AppError(
      'CONFLICT',
      `This run saved version ${context.saved.version} already; a run saves once. Finish now.`,
    );
  }
  if (context.mode === 'bootstrap') {
    const status = context.tally.status(await unreadRemain(context));
    if (!status.done) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `Not enough signal yet: ${status.substantive} substantive comments from ${status.pullRequestsRead} pull requests, and unread merged pull requests remain. Read more with read_review_comments first. Nothing was saved.`,
      );
    }
  }
}

/**
 * `save_review_style_prompt`: saves the repository's review style once per run, as a new version
 * with its provenance (the pull requests, comment ids and reviewers the crawl read, or the
 * findings a continual run weighed; the model; the counts). A prompt outside 400-1,200 words, a
 * bootstrap before the crawl has enough signal, and a second save are refused with the reason.
 */
export function saveReviewStylePromptTool(
  context: ReviewStyleRunContext,
): CaravelTool<ReviewStyleRow> {
  return defineTool({
    name: 'save_review_style_prompt',
    description: `Save the repository's review style prompt (${STYLE_WORDS.min}-${STYLE_WORDS.max} words) with a short summary. Call it once, when the style is written.`,
    effect: 'write',
    input,
    async run({ prompt, summary }) {
      const wordCount = checkStylePrompt(prompt);
      await checkMaySave(context);
      context.saved = await context.styles.save({
        repository: context.repository,
        mode: context.mode,
        threadId: context.threadId,
        prompt,
        summary,
        wordCount,
        model: context.modelName,
        ...provenanceOf(context),
      });
      return context.saved;
    },
    observe: (saved) =>
      `Saved version ${saved.version} of ${saved.repository}'s review style (${saved.wordCount} words, from ${saved.counts.pullRequests} pull requests). Finish now.`,
  });
}
