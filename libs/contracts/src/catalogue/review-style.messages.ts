import { z } from 'zod';
import { defineMessage } from '../define-message.js';
import { threadId } from './common.js';

/** How a review style is learned: from the repository's history, or from findings' outcomes. */
export const reviewStyleMode = z.enum(['bootstrap', 'continual']);
export type ReviewStyleModeName = z.infer<typeof reviewStyleMode>;

/**
 * Learn a repository's review style. `bootstrap` (a person asked: `caravel analyze`, the
 * dashboard) crawls merged pull requests' human review comments; `continual` (the analyzer's
 * nightly job) weighs the outcomes of Caravel's findings since the latest saved version.
 * Addressed to the repository's analyzer thread (`reviewStyleThreadId`).
 */
export const AnalyzeReviewStyleV1 = defineMessage({
  kind: 'cmd',
  name: 'review_style.analyze',
  version: 1,
  description: "Learn a repository's review style (bootstrap from history, or continual).",
  data: z.object({
    /** The repository's analyzer thread (`reviewStyleThreadId`). */
    threadId,
    repository: z.object({ owner: z.string().min(1), name: z.string().min(1) }),
    mode: reviewStyleMode,
    /** Who asked (a login, `cli`, `nightly`): for the logs. */
    requestedBy: z.string().min(1),
    /** One id per request: a redelivery of the same request is recognised by it. */
    requestId: z.uuid(),
  }),
  fixture: {
    threadId: 'e0ccc71f-1165-5ade-8df9-06d01c4a26da',
    repository: { owner: 'acme', name: 'widgets' },
    mode: 'bootstrap',
    requestedBy: 'cli',
    requestId: '0b1c5e8e-2f4a-4c55-9d7e-3a2f1e0c9b11',
  },
});
