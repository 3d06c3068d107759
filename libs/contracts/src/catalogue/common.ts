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
});

/** How a run ended, in SWE-agent's vocabulary (`submitted`, `exit_cost`, ...). */
export const exitStatus = z.string().regex(/^(submitted|exit_[a-z_]+)( \(exit_[a-z_]+\))?$|^noop$/);
