import { z } from 'zod';

export const threadId = z.uuid();

/** The branch a thread's work lives on, in its sandbox and on the remote. */
export function threadBranch(id: string): string {
  return `caravel/${id.slice(0, 8)}`;
}
export const runId = z.uuid();

/** Where a request came from; replies go back there. */
export const triggerSource = z.enum([
  'github',
  'slack',
  'linear',
  'jira',
  'confluence',
  'synthetic',
]);
export type TriggerSource = z.infer<typeof triggerSource>;

/**
 * What a trigger asks: `message` (text for the agent) or `command` (a person's shell command for
 * the thread's sandbox, run between the agent's steps).
 */
export const triggerKind = z.enum(['message', 'command']);
export type TriggerKind = z.infer<typeof triggerKind>;

/** How a run ended. An interrupted run is healthy, not a failure: the next run resumes it. */
export const runOutcome = z.enum(['completed', 'failed', 'interrupted']);
export type RunOutcome = z.infer<typeof runOutcome>;

export const actor = z.object({
  /** The source's own id for the person (GitHub login, Slack user id, ...). */
  externalId: z.string().min(1),
  displayName: z.string().min(1).optional(),
});

export const repositoryRef = z.object({
  owner: z.string().min(1),
  name: z.string().min(1),
  /** Where the sandbox clones from, when it is not the SCM's default (a local path or URL). */
  cloneUrl: z.string().min(1).optional(),
  /** The branch the work starts from; the repository's default branch when absent. */
  baseBranch: z.string().min(1).optional(),
});

/** Per-thread settings a request may carry; they win over the user's profile and team defaults. */
export const threadOptions = z.object({
  /** A model reference such as `anthropic:claude-sonnet-4-5` or `scripted:<file>`. */
  model: z.string().min(1).optional(),
  reasoningEffort: z.string().min(1).optional(),
  /** The model tried once when the thread's model fails after its retries (the team's else). */
  fallbackModel: z.string().min(1).optional(),
  /** Retry-and-select: run this many attempts, each in a fresh sandbox, and keep the best. */
  attempts: z.number().int().min(1).max(10).optional(),
  /** The model of attempt `i` is `attemptModels[i % length]` (default: the thread's model). */
  attemptModels: z.array(z.string().min(1)).min(1).optional(),
  /** How the winner is picked: a reviewer scores each attempt, or a chooser picks one. */
  selection: z.enum(['score', 'chooser']).optional(),
  /** The reviewer's or chooser's model (default: the thread's model). */
  reviewModel: z.string().min(1).optional(),
});

/** How a run ended, in SWE-agent's vocabulary (`submitted`, `exit_cost`, ...). */
export const exitStatus = z.string().regex(/^(submitted|exit_[a-z_]+)( \(exit_[a-z_]+\))?$/);

export type RepositoryRef = z.infer<typeof repositoryRef>;
export type ThreadOptions = z.infer<typeof threadOptions>;
export type Actor = z.infer<typeof actor>;

/**
 * Who acted on which GitHub repository, as the signed webhook said it: what the public-repository
 * gate (`PUBLIC_REPO_ORG_GATE`) decides on, in dispatch, which holds the GitHub App.
 */
export const githubActorFacts = z.object({
  login: z.string().min(1),
  /** GitHub's account type: `User`, `Bot`, `Organization`. */
  userType: z.string().min(1).optional(),
  /** `author_association` of the comment, review or pull request, when the payload has one. */
  association: z.string().min(1).optional(),
  repository: z.object({
    owner: z.string().min(1),
    name: z.string().min(1),
    private: z.boolean(),
    ownerIsOrganization: z.boolean(),
  }),
});

/** {@link githubActorFacts}, typed. */
export type GithubActorFacts = z.infer<typeof githubActorFacts>;
