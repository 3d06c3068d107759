import { z } from 'zod';
import type { CaravelTool } from '../core/tool-definition.js';
import type { ReviewRequested, ReviewRequester } from './channel.ports.js';
import { defineChannelTool } from './channel-tool.js';

/** What `request_pr_review` did. */
export type RequestPrReviewOutput = ReviewRequested;

/** Says exactly who was asked: people by login, Caravel's reviewer only when it took the request. */
function requestedText(output: RequestPrReviewOutput): string {
  const { number, url } = output.pullRequest;
  const asked: string[] = [];
  if (output.requested.length > 0) asked.push(`requested from ${output.requested.join(', ')}`);
  if (output.reviewer) {
    asked.push(`queued for Caravel's reviewer at head ${output.reviewer.headSha.slice(0, 12)}`);
  }
  if (asked.length === 0) return `Nobody was asked to review #${number}: ${url}`;
  return `Review of #${number} ${asked.join('; ')}: ${url}`;
}

/**
 * `request_pr_review`: ask for a review of a pull request of the thread's repository. The user's
 * instructions are forwarded verbatim; a verdict (approve / request changes) is asked for only
 * when the user explicitly asked for one.
 */
export function requestPrReviewTool(reviews: ReviewRequester): CaravelTool<RequestPrReviewOutput> {
  return defineChannelTool({
    name: 'request_pr_review',
    description:
      'Request a review of a pull request: from people (GitHub logins), or, with no reviewers, ' +
      "from Caravel's reviewer agent. Pass the user's review instructions verbatim. Set " +
      'request_verdict only when the user explicitly asked for an approval or a request for ' +
      'changes.',
    effect: 'write',
    input: z.strictObject({
      pull_request: z.number().int().positive(),
      reviewers: z
        .array(
          z
            .string()
            .trim()
            .regex(/^[A-Za-z0-9-]+$/, 'a GitHub login'),
        )
        .max(15)
        .default([]),
      instructions: z.string().max(20_000).optional(),
      request_verdict: z.boolean().default(false),
    }),
    run: (input) =>
      reviews.requestReview({
        pullRequest: input.pull_request,
        reviewers: input.reviewers,
        verdictRequested: input.request_verdict,
        ...(input.instructions ? { instructions: input.instructions } : {}),
      }),
    observe: requestedText,
  });
}
