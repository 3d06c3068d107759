import { z } from 'zod';
import { evalName } from './eval-schedule-routes.js';
import { evalProposalResponse } from './eval-schemas.js';
import {
  reviewStyleDetailResponse,
  reviewStyleHistoryResponse,
  reviewStyleSummaryResponse,
} from './review-style-schemas.js';
import type { RouteSpec } from './route-spec.js';
import { reviewedPullRequestResponse, reviewLedgerResponse } from './schemas.js';

const repositoryParams = z.object({
  owner: z.string().min(1).max(100),
  name: z.string().min(1).max(100),
});
const styleName = z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'a GitHub owner or repository name');
const styleParams = z.object({ owner: styleName, name: styleName });

/** The longest style prompt a person may propose (the reviewer sends it with every review). */
export const MAX_STYLE_PROMPT = 20_000;

/** A style prompt: text a person wrote, with line breaks and tabs but no other control characters. */
const stylePrompt = z
  .string()
  .trim()
  .min(20, 'at least 20 characters')
  .max(MAX_STYLE_PROMPT, `at most ${MAX_STYLE_PROMPT.toLocaleString('en')} characters`)
  // eslint-disable-next-line no-control-regex -- the point is to refuse control characters
  .refine((text) => !/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/.test(text), {
    message: 'control characters other than line breaks and tabs are not allowed',
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
  listReviewStyles: {
    method: 'get',
    path: '/api/review-styles',
    summary:
      'Repositories with a learned review style, by name: the version in force, how it was made and when, and how many versions',
    access: 'read',
    response: z.array(reviewStyleSummaryResponse),
  },
  reviewStyleHistory: {
    method: 'get',
    path: '/api/review-styles/{owner}/{name}',
    summary:
      "A repository's review style versions, the newest first, with their provenance, and its proposed edits with the gate's verdicts",
    access: 'read',
    params: styleParams,
    query: z.strictObject({ limit: z.coerce.number().int().min(1).max(500).default(100) }),
    response: reviewStyleHistoryResponse,
  },
  reviewStyleVersion: {
    method: 'get',
    path: '/api/review-styles/{owner}/{name}/versions/{version}',
    summary: "One version of a repository's review style with its prompt",
    access: 'read',
    params: styleParams.extend({ version: z.coerce.number().int().min(1) }),
    response: reviewStyleDetailResponse,
  },
  proposeReviewStyle: {
    method: 'post',
    path: '/api/review-styles/{owner}/{name}/proposals',
    summary:
      "Proposes an edited style prompt (admins): a pending proposal that becomes the repository's next version only when `caravel eval gate-style` accepts it",
    access: 'admin',
    params: styleParams,
    body: z.strictObject({
      prompt: stylePrompt,
      summary: z.string().trim().max(2000).optional().describe('what the style says, in short'),
      suite: evalName.describe('the labelled review set the gate measures it on (its name)'),
      note: z.string().trim().max(2000).optional(),
    }),
    status: 201,
    response: evalProposalResponse,
  },
} as const satisfies Record<string, RouteSpec>;
