import { z } from 'zod';

/** The few fields of GitHub's webhook payloads ingress reads; everything else is ignored. */
export const githubUser = z.object({ login: z.string(), type: z.string().optional() });

/**
 * How the author of a comment or review relates to the repository (`OWNER`, `MEMBER`,
 * `COLLABORATOR`, `CONTRIBUTOR`, `FIRST_TIME_CONTRIBUTOR`, `NONE`, ...).
 */
const authorAssociation = z.string().optional();

const repository = z.object({
  name: z.string(),
  owner: z.object({ login: z.string(), type: z.string().optional() }),
  /** Absent in a few hand-written payloads; GitHub always sends it. Absent is treated as public. */
  private: z.boolean().optional(),
});

const issue = z.object({
  id: z.number(),
  number: z.number(),
  title: z.string(),
  body: z.string().nullable().optional(),
  updated_at: z.string().optional(),
  user: githubUser.optional(),
  labels: z.array(z.object({ name: z.string() }).loose()).optional(),
  pull_request: z.object({}).loose().optional(),
});

/** A review comment's place in the diff (absent on conversation comments). */
const comment = z.object({
  id: z.number(),
  body: z.string().nullable(),
  user: githubUser,
  author_association: authorAssociation,
  path: z.string().optional(),
  line: z.number().nullable().optional(),
  start_line: z.number().nullable().optional(),
  diff_hunk: z.string().optional(),
  in_reply_to_id: z.number().optional(),
});

/** A branch end of a pull request; `repo` is null when the head's fork was deleted. */
const branchEnd = z.object({
  sha: z.string(),
  ref: z.string().optional(),
  repo: z
    .object({ name: z.string(), owner: z.object({ login: z.string() }) })
    .nullable()
    .optional(),
});

const pullRequest = z.object({
  id: z.number(),
  number: z.number(),
  title: z.string().optional(),
  body: z.string().nullable().optional(),
  draft: z.boolean().optional(),
  head: branchEnd,
  base: branchEnd.partial().optional(),
  user: githubUser.optional(),
  author_association: authorAssociation,
});

export const issueCommentPayload = z.object({
  action: z.string(),
  issue,
  comment,
  repository,
});

export const reviewCommentPayload = z.object({
  action: z.string(),
  comment,
  pull_request: pullRequest,
  repository,
});

export const reviewPayload = z.object({
  action: z.string(),
  review: z.object({
    id: z.number(),
    body: z.string().nullable(),
    user: githubUser,
    author_association: authorAssociation,
  }),
  pull_request: pullRequest,
  repository,
});

export const issuesPayload = z.object({
  action: z.string(),
  issue,
  assignee: githubUser.nullable().optional(),
  label: z.object({ name: z.string() }).optional(),
  sender: githubUser,
  repository,
});

export const pullRequestPayload = z.object({
  action: z.string(),
  pull_request: pullRequest,
  repository,
  sender: githubUser,
  /** `synchronize`: the head before the push. */
  before: z.string().optional(),
});

/** A pull request as a CI payload names it (its API `url`; no branches read). */
const ciPullRequest = z.object({ number: z.number(), url: z.string().optional() });

/** A check run, check suite or workflow run: its commit, its pull requests, its state. */
const ciRun = z.object({
  head_sha: z.string(),
  pull_requests: z.array(ciPullRequest),
  /** A check run's or workflow run's name (a suite is named after its app). */
  name: z.string().nullable().optional(),
  app: z.object({ name: z.string().optional() }).loose().nullable().optional(),
  status: z.string().nullable().optional(),
  conclusion: z.string().nullable().optional(),
  details_url: z.string().nullable().optional(),
  html_url: z.string().nullable().optional(),
});

/** check_run / check_suite / workflow_run / status: the commit and any pull requests named. */
export const ciPayload = z.object({
  action: z.string().optional(),
  /** A commit status: its commit, context, state and link. */
  sha: z.string().optional(),
  context: z.string().optional(),
  state: z.string().optional(),
  target_url: z.string().nullable().optional(),
  check_run: ciRun.optional(),
  check_suite: ciRun.optional(),
  workflow_run: ciRun.optional(),
  repository: repository.extend({ html_url: z.string().optional() }),
});

export type GithubRepository = z.infer<typeof repository>;
export type GithubIssue = z.infer<typeof issue>;
export type GithubPullRequest = z.infer<typeof pullRequest>;
export type GithubComment = z.infer<typeof comment>;
