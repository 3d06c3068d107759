import type { Actor, RepositoryRef, TriggerSource } from '@caravel/contracts';

/** A delivery that asks Caravel for something: it is recorded and published as a trigger. */
export interface TriggerDecision {
  kind: 'trigger';
  source: TriggerSource;
  /** `<event>.<action>` as the sender names it, e.g. `issue_comment.created`. */
  event: string;
  deliveryId: string;
  /** Identifies the same request across delivery ids (a comment id, a Slack channel + ts). */
  semanticKey: string | null;
  threadId: string;
  author: Actor;
  text: string;
  repository?: RepositoryRef;
  replyTo: Record<string, string | number>;
  /** Only act when Caravel already has this thread (an untagged Slack thread reply). */
  requiresKnownThread?: boolean;
}

/** A delivery kept for later features (CI events, PR opened) that starts nothing today. */
export interface RecordDecision {
  kind: 'record';
  source: TriggerSource;
  event: string;
  deliveryId: string;
  semanticKey: string | null;
  threadId: string;
}

/** A verified delivery that is not for us. */
export interface IgnoreDecision {
  kind: 'ignore';
  reason: string;
}

/** What a mapper makes of one verified delivery. */
export type WebhookDecision = TriggerDecision | RecordDecision | IgnoreDecision;

export function ignore(reason: string): IgnoreDecision {
  return { kind: 'ignore', reason };
}

/**
 * True when `text` mentions `@handle` as a whole token: `@caravel` and `@Caravel,` match,
 * `@caravelx`, `@caravel-dev` and `me@caravel.dev` do not.
 */
export function mentions(text: string | null | undefined, handle: string): boolean {
  if (!text) return false;
  const escaped = handle.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\w@./-])@${escaped}(?![\\w-])`, 'i').test(text);
}
