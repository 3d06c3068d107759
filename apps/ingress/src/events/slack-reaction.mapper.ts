import { slackThreadId } from '@caravel/contracts';
import { z } from 'zod';
import { ignore, type IgnoreDecision, type StopDecision } from './webhook-decision.js';

/** Slack's name of the ❌ emoji: a reaction that asks Caravel to stop the thread's work. */
export const STOP_REACTION = 'x';

const reactionAdded = z.object({
  type: z.literal('reaction_added'),
  user: z.string().min(1),
  reaction: z.string(),
  item: z.object({ type: z.string(), channel: z.string().optional(), ts: z.string().optional() }),
});

/**
 * A `reaction_added` event: ❌ (`x`) from a person on a message is a stop request for the thread
 * the message belongs to; any other emoji, a reaction on a file, or one from a bot is ignored.
 * Who may stop is the intake's call (a trusted author, on a thread Caravel has).
 */
export function mapSlackReaction(
  body: { team_id: string; event_id: string; event: unknown },
  settings: { botUserId?: string | undefined },
): StopDecision | IgnoreDecision {
  const parsed = reactionAdded.safeParse(body.event);
  if (!parsed.success) return ignore('slack reaction_added without user or item');
  const { user, reaction, item } = parsed.data;
  if (reaction !== STOP_REACTION) return ignore(`slack reaction ${reaction} is not handled`);
  if (settings.botUserId !== undefined && user === settings.botUserId)
    return ignore('bot reaction');
  if (item.type !== 'message' || !item.channel || !item.ts) {
    return ignore('slack reaction on something other than a message');
  }
  return {
    kind: 'stop',
    source: 'slack',
    event: 'reaction_added',
    deliveryId: body.event_id,
    semanticKey: `reaction:${item.channel}:${item.ts}:${user}:${reaction}`,
    threadId: slackThreadId({ team: body.team_id, channel: item.channel, threadTs: item.ts }),
    messageKey: `message:${item.channel}:${item.ts}`,
    slackMessage: { team: body.team_id, channel: item.channel, ts: item.ts },
    author: { externalId: user },
  };
}
