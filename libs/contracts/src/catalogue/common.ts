import { z } from 'zod';

export const threadId = z.uuid();
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
});

/** How a run ended, in SWE-agent's vocabulary (`submitted`, `exit_cost`, ...). */
export const exitStatus = z.string().regex(/^(submitted|exit_[a-z_]+)( \(exit_[a-z_]+\))?$/);

export type RepositoryRef = z.infer<typeof repositoryRef>;
export type ThreadOptions = z.infer<typeof threadOptions>;
export type Actor = z.infer<typeof actor>;
