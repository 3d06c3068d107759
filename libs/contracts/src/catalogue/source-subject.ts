import { z } from 'zod';

/**
 * What a request was made on, as far as its source said: the GitHub pull request or issue a
 * comment mentioning Caravel sits on. A trigger carries what the webhook held; the runner reads
 * the live state (head, base, comments) back from GitHub and lets the webhook's copy stand in
 * only when it cannot. Titles, bodies and comments are authored by anyone who can comment: the
 * runner marks them untrusted before a model reads them.
 */

const text = z.string().max(65_536);
const login = z.string().min(1).max(100);

/** A repository by owner and name (a pull request's head may live in a fork). */
const repositoryName = z.object({ owner: z.string().min(1), name: z.string().min(1) });

/** The review-comment thread a comment sits in: its file, lines and diff hunk. */
export const reviewThreadRef = z.object({
  commentId: z.number().int().positive(),
  path: z.string().min(1).max(4096).optional(),
  line: z.number().int().positive().optional(),
  startLine: z.number().int().positive().optional(),
  diffHunk: z.string().max(65_536).optional(),
  /** The comment that opened the thread, when this one answers it. */
  inReplyTo: z.number().int().positive().optional(),
});

/** A GitHub pull request a request was made on. */
export const pullRequestSubject = z.object({
  kind: z.literal('pull_request'),
  number: z.number().int().positive(),
  title: text.optional(),
  body: text.nullable().optional(),
  author: login.optional(),
  /** The branch its commits are on, and where that branch lives (a fork, maybe). */
  headRef: z.string().min(1).max(255).optional(),
  headSha: z
    .string()
    .regex(/^[0-9a-f]{40}$/)
    .optional(),
  headRepository: repositoryName.nullable().optional(),
  baseRef: z.string().min(1).max(255).optional(),
  /** Set when the request is a review comment: the thread it was written in. */
  reviewThread: reviewThreadRef.optional(),
});

/** A GitHub issue a request was made on. */
export const issueSubject = z.object({
  kind: z.literal('issue'),
  number: z.number().int().positive(),
  title: text.optional(),
  body: text.nullable().optional(),
  author: login.optional(),
  labels: z.array(z.string().max(100)).max(100).default([]),
});

/** The pull request or issue a request was made on (absent for chat and tracker sources). */
export const sourceSubject = z.discriminatedUnion('kind', [pullRequestSubject, issueSubject]);

export type PullRequestSubject = z.infer<typeof pullRequestSubject>;
export type IssueSubject = z.infer<typeof issueSubject>;
export type SourceSubject = z.infer<typeof sourceSubject>;
export type ReviewThreadRef = z.infer<typeof reviewThreadRef>;
