import { z } from 'zod';
import { defineMessage } from '../define-message.js';
import { repositoryRef, threadId } from './common.js';

const commitSha = z.string().regex(/^[0-9a-fA-F]{7,64}$/, 'a commit sha');
/** Names and links come from whoever configured the CI: bounded, and untrusted for a model. */
const checkName = z.string().min(1).max(300);
const checkUrl = z.string().max(2_000).optional();

/** GitHub's check run (and check suite, workflow run) states, as {@link CiCheckReportedV1} carries them. */
export const CHECK_RUN_STATUSES = [
  'queued',
  'in_progress',
  'completed',
  'waiting',
  'requested',
  'pending',
] as const;
export const CHECK_RUN_CONCLUSIONS = [
  'success',
  'failure',
  'neutral',
  'cancelled',
  'skipped',
  'timed_out',
  'action_required',
  'stale',
  'startup_failure',
] as const;
export const COMMIT_STATUS_STATES = ['success', 'failure', 'error', 'pending'] as const;

/**
 * One CI signal on a commit: a check run (a check suite or workflow run reads as one, named after
 * its app or workflow) or a commit status. The shape dispatch's check summary takes.
 */
export const ciCheck = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('check_run'),
    name: checkName,
    status: z.enum(CHECK_RUN_STATUSES),
    conclusion: z.enum(CHECK_RUN_CONCLUSIONS).nullable(),
    url: checkUrl,
  }),
  z.object({
    kind: z.literal('status'),
    name: checkName,
    state: z.enum(COMMIT_STATUS_STATES),
    url: checkUrl,
  }),
]);
export type CiCheck = z.infer<typeof ciCheck>;

/**
 * A CI delivery (`check_run`, `check_suite`, `workflow_run`, `status`) on a commit: what dispatch's
 * CI babysitting evaluates the watched pull requests at that head with. Keyed like the other
 * ingress messages: by the first pull request's thread, else by the commit's.
 */
export const CiCheckReportedV1 = defineMessage({
  kind: 'trigger',
  name: 'ci.check_reported',
  version: 1,
  description:
    'A check run, check suite, workflow run or commit status reported on a commit (GitHub).',
  data: z.object({
    /** `githubThreadId` of the first pull request named, else `githubCommitThreadId`. */
    threadId,
    source: z.literal('github'),
    deliveryId: z.string().min(1),
    /** The GitHub event it came from. */
    event: z.enum(['check_run', 'check_suite', 'workflow_run', 'status']),
    repository: repositoryRef,
    headSha: commitSha,
    /** The pull requests whose head it is, as GitHub named them (none for a commit status). */
    pullRequests: z
      .array(z.object({ number: z.number().int().positive(), url: z.string().max(2_000) }))
      .max(100),
    check: ciCheck,
  }),
  fixture: {
    threadId: '325c2e32-1a11-5240-894c-3aa20546cbe3',
    source: 'github',
    deliveryId: 'fixture-delivery-4',
    event: 'check_run',
    repository: { owner: 'acme', name: 'widgets' },
    headSha: '34c5c7793cb3b279e22454cb6750c80560547b3a',
    pullRequests: [{ number: 42, url: 'https://github.com/acme/widgets/pull/42' }],
    check: {
      kind: 'check_run',
      name: 'lint',
      status: 'completed',
      conclusion: 'failure',
      url: 'https://ci.example/lint/1',
    },
  },
});
