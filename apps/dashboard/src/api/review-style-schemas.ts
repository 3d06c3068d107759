import { z } from 'zod';
import { evalProposalResponse } from './eval-schemas.js';

/**
 * Response shapes of the review-style routes (docs/analyzer.md, docs/dashboard.md): only zod, so
 * the web app's program reads their types and nothing else of the server.
 */
const when = z.string().describe('ISO 8601 time');

const counts = z
  .object({
    pullRequests: z.number(),
    comments: z.number(),
    reviewers: z.number(),
    outcomes: z.number().optional(),
  })
  .describe('what the saver counted');

/** A repository with a learned style: its version in force. */
export const reviewStyleSummaryResponse = z.object({
  repository: z.string(),
  version: z.number().describe('the version in force (the highest)'),
  mode: z.string().describe('bootstrap, continual or edited'),
  model: z.string(),
  summary: z.string(),
  wordCount: z.number(),
  editedBy: z.string().nullable(),
  createdAt: when,
  versions: z.number().describe('versions saved so far'),
});

/** One version's provenance (its prompt is read one version at a time). */
export const reviewStyleVersionResponse = z.object({
  repository: z.string(),
  version: z.number(),
  mode: z.string().describe('bootstrap, continual or edited'),
  model: z.string().describe('the model that wrote it (an edit: the version it was edited from)'),
  threadId: z.uuid().describe('the analyzer thread'),
  summary: z.string(),
  wordCount: z.number(),
  pullRequests: z.array(z.number()).describe('pull requests read'),
  comments: z.number().describe('review comments learned from (findings weighed, continual)'),
  reviewers: z.array(z.string()),
  counts,
  editedBy: z.string().nullable().describe('who proposed the edit (an edited version)'),
  proposalId: z.uuid().nullable().describe("the edit's accepted proposal"),
  createdAt: when,
});

/** One version with its prompt (the reviewer reads it as the repository's style). */
export const reviewStyleDetailResponse = reviewStyleVersionResponse.extend({ prompt: z.string() });

/** A repository's versions, the newest first, and its style edits with the gate's verdicts. */
export const reviewStyleHistoryResponse = z.object({
  repository: z.string(),
  versions: z.array(reviewStyleVersionResponse),
  proposals: z.array(evalProposalResponse),
});
