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
  pull_request: z.object({}).loose().optional(),
});

const comment = z.object({
  id: z.number(),
  body: z.string().nullable(),
  user: githubUser,
  author_association: authorAssociation,
});

const pullRequest = z.object({
  id: z.number(),
  number: z.number(),
  draft: z.boolean().optional(),
  head: z.object({ sha: z.string() }),
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

/** check_run / check_suite / workflow_run / status: the commit and any pull requests named. */
export const ciPayload = z.object({
  action: z.string().optional(),
  sha: z.string().optional(),
  check_run: z
    .object({ head_sha: z.string(), pull_requests: z.array(z.object({ number: z.number() })) })
    .optional(),
  check_suite: z
    .object({ head_sha: z.string(), pull_requests: z.array(z.object({ number: z.number() })) })
    .optional(),
  workflow_run: z
    .object({ head_sha: z.string(), pull_requests: z.array(z.object({ number: z.number() })) })
    .optional(),
  repository,
});

export type GithubRepository = z.infer<typeof repository>;
