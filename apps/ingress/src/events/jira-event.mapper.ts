import { jiraThreadId } from '@caravel/contracts';
import { z } from 'zod';
import { payloadMalformed } from '../ingress.errors.js';
import type { WebhookDecision } from './webhook-decision.js';

/**
 * The body our Jira Automation rule sends (see docs/ingress.md for the rule's template). Jira
 * gives no delivery id of its own, so the rule puts one in (`{{issue.key}}-{{now.asMillis}}`).
 */
export const jiraRuleBody = z.object({
  deliveryId: z.string().min(1),
  site: z.string().min(1),
  issue: z.object({ id: z.string().min(1), key: z.string().min(1) }),
  comment: z.object({ id: z.string().min(1) }).optional(),
  author: z.object({ accountId: z.string().min(1), displayName: z.string().min(1).optional() }),
  text: z.string(),
  repository: z
    .string()
    .regex(/^[\w.-]+\/[\w.-]+$/, 'owner/name')
    .optional(),
});

/** Decides what a verified Jira Automation request asks for: always a trigger on its issue. */
export function mapJiraEvent(payload: unknown): WebhookDecision {
  const parsed = jiraRuleBody.safeParse(payload);
  if (!parsed.success) throw payloadMalformed('jira', parsed.error.message);
  const p = parsed.data;
  const [owner, name] = p.repository?.split('/') ?? [];
  return {
    kind: 'trigger',
    source: 'jira',
    event: p.comment ? 'comment' : 'issue',
    deliveryId: p.deliveryId,
    semanticKey: p.comment ? `comment:${p.comment.id}` : null,
    threadId: jiraThreadId({ site: p.site, issueId: p.issue.id }),
    author: {
      externalId: p.author.accountId,
      ...(p.author.displayName ? { displayName: p.author.displayName } : {}),
    },
    text: p.text,
    ...(owner && name ? { repository: { owner, name } } : {}),
    container: p.issue.key.split('-')[0] ?? p.issue.key,
    replyTo: {
      site: p.site,
      issueKey: p.issue.key,
      ...(p.comment ? { commentId: p.comment.id } : {}),
    },
  };
}
