import { z } from 'zod';
import { defineMessage } from '../define-message.js';
import { actor, githubActorFacts, repositoryRef, threadId } from './common.js';

const commitSha = z.string().regex(/^[0-9a-fA-F]{7,64}$/, 'a commit sha');

/**
 * A pull request asks for Caravel's review: it was opened (or marked ready for review) on a
 * repository that opted in to auto-review, or the coding agent asked for one on a person's
 * behalf. Addressed to the reviewer's thread of the pull request.
 */
export const ReviewRequestedV1 = defineMessage({
  kind: 'trigger',
  name: 'review.requested',
  version: 1,
  description:
    'A pull request asks for a review: opened on an auto-review repository, or asked by the agent.',
  data: z.object({
    /** The reviewer's thread of the pull request (`githubReviewThreadId`). */
    threadId,
    /** The pull request's own coding thread (`githubThreadId`). */
    pullRequestThreadId: threadId,
    source: z.literal('github'),
    deliveryId: z.string().min(1),
    repository: repositoryRef,
    pullRequest: z.object({
      number: z.number().int().positive(),
      headSha: commitSha,
      draft: z.boolean(),
    }),
    /** The pull request's author. */
    author: actor,
    /** `requested`: the coding agent asked on a person's behalf (`request_pr_review`). */
    reason: z.enum(['opened', 'ready_for_review', 'requested']),
    /** The person's review instructions, verbatim (untrusted text for the reviewer's model). */
    instructions: z.string().max(20_000).optional(),
    /**
     * `requested`: the person the coding agent asked for, as Caravel names people
     * (`<source>:<id>`, the key of their standing instructions). Never the pull request's author
     * unless they asked: an author's own instructions must not steer the review of their code.
     */
    requestedBy: z.string().min(1).max(300).optional(),
    /** True only when the person explicitly asked for an approval or a request for changes. */
    verdictRequested: z.boolean().default(false),
    /**
     * `opened`, `ready_for_review`: the pull request's author as the public-repository gate reads
     * them, decided by the reviewer before anything is opened. Absent on requests an older ingress
     * published (it decided the gate itself) and on the agent's own (`requested`).
     */
    githubActor: githubActorFacts.optional(),
  }),
  fixture: {
    threadId: '59ec28ef-b6ee-5f51-8c35-1672d492b244',
    pullRequestThreadId: '325c2e32-1a11-5240-894c-3aa20546cbe3',
    source: 'github',
    deliveryId: 'fixture-delivery-2',
    repository: { owner: 'acme', name: 'widgets' },
    pullRequest: { number: 42, headSha: 'ec26c3e57ca3a959ca5aad62de7213c562f8c821', draft: false },
    author: { externalId: 'octocat' },
    reason: 'opened',
  },
});

/** New commits were pushed to a pull request Caravel has a thread for: the thread's new head. */
export const PullRequestHeadMovedV1 = defineMessage({
  kind: 'trigger',
  name: 'pull_request.head_moved',
  version: 1,
  consumerName: 'head-moves',
  description:
    "A pull request's head moved (GitHub `synchronize`); its thread learns the new head.",
  data: z.object({
    threadId,
    source: z.literal('github'),
    deliveryId: z.string().min(1),
    repository: repositoryRef,
    pullRequest: z.number().int().positive(),
    headSha: commitSha,
    /** The head before the push, when the sender said. */
    previousSha: commitSha.optional(),
  }),
  fixture: {
    threadId: '325c2e32-1a11-5240-894c-3aa20546cbe3',
    source: 'github',
    deliveryId: 'fixture-delivery-3',
    repository: { owner: 'acme', name: 'widgets' },
    pullRequest: 42,
    headSha: '34c5c7793cb3b279e22454cb6750c80560547b3a',
    previousSha: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
  },
});
