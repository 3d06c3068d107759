import { confluenceThreadId } from '@caravel/contracts';
import type { WikiComment } from '@caravel/integrations';
import { z } from 'zod';
import { payloadMalformed } from '../ingress.errors.js';
import { ignore, mentions, type WebhookDecision } from './webhook-decision.js';

/**
 * The part of a `comment_created` body Caravel reads: the comment id, a pointer only. The
 * author and text in the body are never used; the comment is re-fetched.
 */
const commentCreatedBody = z.object({
  comment: z.object({ id: z.union([z.string().min(1), z.number().int()]).transform(String) }),
});

/** The comment a verified `comment_created` body points at. */
export function commentIdOf(payload: unknown): string {
  const parsed = commentCreatedBody.safeParse(payload);
  if (!parsed.success) throw payloadMalformed('confluence', parsed.error.message);
  return parsed.data.comment.id;
}

/** Who Caravel is on Confluence, to spot mentions and its own comments. */
export interface ConfluenceBot {
  accountId: string | undefined;
  handle: string;
}

/** Decides what a re-fetched comment asks for: a trigger when it mentions Caravel. */
export function mapConfluenceComment(
  tenant: { clientKey: string; baseUrl: string },
  comment: WikiComment,
  bot: ConfluenceBot,
): WebhookDecision {
  if (bot.accountId && comment.author.accountId === bot.accountId) {
    return ignore("Caravel's own comment");
  }
  const addressed =
    (bot.accountId !== undefined && comment.mentions.includes(bot.accountId)) ||
    mentions(comment.markdown, bot.handle);
  if (!addressed) return ignore('the comment does not mention Caravel');
  const key = `comment:${tenant.clientKey}:${comment.id}`;
  return {
    kind: 'trigger',
    source: 'confluence',
    event: 'comment_created',
    deliveryId: key,
    semanticKey: key,
    threadId: confluenceThreadId({
      site: tenant.baseUrl,
      pageId: comment.pageId,
      rootCommentId: comment.rootCommentId,
    }),
    author: {
      externalId: comment.author.accountId,
      ...(comment.author.displayName ? { displayName: comment.author.displayName } : {}),
    },
    text: comment.markdown,
    replyTo: { site: tenant.baseUrl, pageId: comment.pageId, commentId: comment.id },
    ...(comment.spaceKey ? { container: comment.spaceKey } : {}),
  };
}
