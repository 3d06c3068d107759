import { z } from 'zod';
import { defineMessage } from '../define-message.js';
import {
  actor,
  githubActorFacts,
  repositoryRef,
  threadId,
  threadOptions,
  triggerKind,
  triggerSource,
} from './common.js';
import { sourceSubject } from './source-subject.js';

/** Ingress accepted a verified delivery that asks Caravel for something. */
export const TriggerReceivedV1 = defineMessage({
  kind: 'trigger',
  name: 'received',
  version: 1,
  consumerName: 'triggers',
  description: 'A verified, deduplicated request from a source, addressed to a thread.',
  data: z.object({
    threadId,
    source: triggerSource,
    /** The sender's delivery id (X-GitHub-Delivery, Slack event_id, ...). */
    deliveryId: z.string().min(1),
    author: actor,
    text: z.string(),
    /** False when the author is not a mapped user: the text must be marked untrusted for models. */
    trusted: z.boolean(),
    repository: repositoryRef.optional(),
    /** Source-specific pointer to reply to (PR number, Slack channel + ts, issue key, ...). */
    replyTo: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
    options: threadOptions.default({}),
    /**
     * `message`: text for the agent. `command`: a person's shell command for the thread's sandbox
     * (human takeover), run between the agent's steps and recorded under the person's name.
     */
    kind: triggerKind.default('message'),
    /** The pull request or issue the request was made on, as the webhook described it. */
    subject: sourceSubject.optional(),
    /**
     * GitHub: the actor facts of the public-repository gate, decided by dispatch before anything
     * is created. Absent on triggers an older ingress published (it decided the gate itself).
     */
    githubActor: githubActorFacts.optional(),
    /**
     * Slack, Linear, Jira, Confluence: the repository an admin chose for the place the message came
     * from (its route, the default, the Jira rule's; null: none), so dispatch can tell a repository
     * the person chose (one that is not this) and check the person may see it on GitHub, on the
     * thread's first trigger and on every follow-up. Absent on triggers an older ingress published
     * (it checked a named repository itself).
     */
    placeRepository: repositoryRef.nullable().optional(),
  }),
  fixture: {
    threadId: '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e',
    source: 'synthetic',
    deliveryId: 'fixture-delivery-1',
    author: { externalId: 'octocat', displayName: 'The Octocat' },
    text: '@caravel fix the flaky test in parser.spec.ts',
    trusted: true,
    repository: { owner: 'acme', name: 'widgets' },
    replyTo: { issue: 42 },
  },
});
