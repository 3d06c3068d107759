import { z } from 'zod';
import type { RouteSpec } from './route-spec.js';
import { reviewedPullRequestResponse, reviewLedgerResponse } from './schemas.js';

const repositoryParams = z.object({
  owner: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
});

/** Reviews and review styles: the routes of `ReviewsController` and `ReviewStylesController`. */
export const REVIEW_ROUTES = {
  listReviews: {
    method: 'get',
    path: '/api/reviews',
    summary:
      'Reviewed pull requests, the most recently changed first, with their findings by status',
    access: 'read',
    query: z.strictObject({
      repo: z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,100}\/[A-Za-z0-9_.-]{1,100}$/, 'owner/name')
        .optional(),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
    response: z.array(reviewedPullRequestResponse),
  },
  reviewLedger: {
    method: 'get',
    path: '/api/reviews/{owner}/{name}/{number}',
    summary:
      "A pull request's review ledger: every finding on it (Caravel's, people's, other bots'), with counts by status",
    access: 'read',
    params: repositoryParams.extend({ number: z.coerce.number().int().positive() }),
    query: z.strictObject({ status: z.enum(['open', 'resolved', 'dismissed']).optional() }),
    response: reviewLedgerResponse,
  },
  analyzeReviewStyle: {
    method: 'post',
    path: '/api/review-styles/{owner}/{name}/analyze',
    summary:
      "Asks the analyzer to learn a repository's review style from its merged pull requests (admins)",
    access: 'admin',
    params: repositoryParams,
    status: 202,
    response: z.object({ repository: z.string(), threadId: z.uuid(), requestId: z.uuid() }),
  },
} as const satisfies Record<string, RouteSpec>;
