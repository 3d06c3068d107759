import { z } from 'zod';
import type { CaravelTool } from '../core/tool-definition.js';
import type { PullRequestRef } from '../ports/scm.port.js';
import type { ReviewRequester } from './channel.ports.js';
import { defineChannelTool } from './channel-tool.js';

/** What `request_pr_review` did. */
export interface RequestPrReviewOutput {
  pullRequest: PullRequestRef;
  requested: string[];
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
      'Request a review of a pull request: from people (GitHub logins) and/or from the ' +
      "reviewer agent. Pass the user's review instructions verbatim. Set request_verdict only " +
      'when the user explicitly asked for an approval or a request for changes.',
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
    observe: (output) => {
      const who = output.requested.length > 0 ? output.requested.join(', ') : 'the reviewer agent';
      return `Review of #${output.pullRequest.number} requested from ${who}: ${output.pullRequest.url}`;
    },
  });
}
