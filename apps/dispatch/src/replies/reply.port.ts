import type { TriggerSource } from '@caravel/contracts';

/** Where a thread's replies go: its source, the trigger's pointer and its repository. */
export interface ReplyDestination {
  source: TriggerSource;
  replyTo: Record<string, string | number>;
  repository?: { owner: string; name: string };
  /** The thread the reply belongs to (a Slack post is mapped to it, so a ❌ on it stops it). */
  threadId?: string;
}

/** What became of a reply: posted, or skipped because the source cannot be answered. */
export type ReplyOutcome = 'posted' | 'not_configured' | 'no_channel';

/**
 * Dispatch's replies in a thread's source channel (failure replies, queue positions). Each reply
 * is posted at most once per run and text, however often it is asked for.
 */
export interface ReplyPort {
  reply(destination: ReplyDestination, runId: string, text: string): Promise<ReplyOutcome>;
  /**
   * Puts 👀 on the message a trigger came from (`destination.replyTo` is the trigger's own):
   * `posted` when it reacted, else why it did not.
   */
  acknowledge(destination: ReplyDestination): Promise<ReplyOutcome>;
}

/** Injection token of the {@link ReplyPort}. */
export const REPLY_PORT = Symbol('caravel.dispatch-replies');
