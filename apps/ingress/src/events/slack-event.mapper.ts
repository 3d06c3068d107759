import { compiledSchema, slackThreadId } from '@caravel/contracts';
import { z } from 'zod';
import { payloadMalformed } from '../ingress.errors.js';
import { mapSlackReaction } from './slack-reaction.mapper.js';
import {
  ignore,
  type IgnoreDecision,
  type RecordDecision,
  type WebhookDecision,
} from './webhook-decision.js';

const urlVerification = z.object({ type: z.literal('url_verification'), challenge: z.string() });

const eventCallback = z.object({
  type: z.literal('event_callback'),
  team_id: z.string(),
  event_id: z.string(),
  /** A Slack Connect channel: shared with other organisations' workspaces. */
  is_ext_shared_channel: z.boolean().optional(),
  event: z
    .object({
      type: z.string(),
      subtype: z.string().optional(),
      user: z.string().optional(),
      /** The workspace of the message's author (another organisation's in a Slack Connect channel). */
      user_team: z.string().optional(),
      bot_id: z.string().optional(),
      text: z.string().optional(),
      ts: z.string().optional(),
      thread_ts: z.string().optional(),
      channel: z.string().optional(),
      deleted_ts: z.string().optional(),
      message: z.object({ ts: z.string(), thread_ts: z.string().optional() }).loose().optional(),
      previous_message: z
        .object({ ts: z.string(), channel: z.string().optional() })
        .loose()
        .optional(),
    })
    .loose(),
});

const slackBody = z.discriminatedUnion('type', [urlVerification, eventCallback]);

/** What the Slack mapper reads from the configuration. */
export interface SlackMapperSettings {
  botUserId?: string | undefined;
}

/** Slack's handshake: answer with the challenge. */
export interface SlackChallenge {
  kind: 'challenge';
  challenge: string;
}

/**
 * Decides what a verified Slack Events API body asks for. An `app_mention` and the `message`
 * event Slack also sends for it share the semantic key `message:<channel>:<ts>`, so the pair
 * starts one run; an untagged thread reply only counts in a thread Caravel already has. A ❌
 * reaction asks to stop the thread's work ({@link mapSlackReaction}).
 */
export function mapSlackEvent(
  payload: unknown,
  settings: SlackMapperSettings,
): WebhookDecision | SlackChallenge {
  const parsed = compiledSchema(slackBody).safeParse(payload);
  if (!parsed.success) {
    const type = (payload as { type?: unknown } | null)?.type;
    if (typeof type === 'string' && type !== 'url_verification' && type !== 'event_callback') {
      return ignore(`slack ${type} is not handled`);
    }
    throw payloadMalformed('slack', parsed.error.message);
  }
  const body = parsed.data;
  if (body.type === 'url_verification') return { kind: 'challenge', challenge: body.challenge };
  if (body.event.type === 'reaction_added') return mapSlackReaction(body, settings);
  return mapSlackMessage(body, settings);
}

/** A message event: a mention, or an untagged reply in a thread Caravel has. */
function mapSlackMessage(
  body: z.output<typeof eventCallback>,
  settings: SlackMapperSettings,
): WebhookDecision {
  const { event } = body;
  if (event.type !== 'app_mention' && event.type !== 'message') {
    return ignore(`slack event ${event.type} is not handled`);
  }
  if (event.subtype === 'message_changed' || event.subtype === 'message_deleted') {
    return mapSlackMessageChange(body);
  }
  if (event.subtype) return ignore(`slack message subtype ${event.subtype} is not handled`);
  if (event.bot_id || (settings.botUserId && event.user === settings.botUserId)) {
    return ignore('bot message');
  }
  if (!event.user || !event.ts || !event.channel) {
    throw payloadMalformed('slack', `${event.type} without user, ts or channel`);
  }
  // As on a public GitHub repository, only the organisation's own people address Caravel: a
  // Slack Connect channel also holds another organisation's, whose words would run as requests.
  if (body.is_ext_shared_channel === true && event.user_team && event.user_team !== body.team_id) {
    return ignore(
      `message from a user of another workspace (${event.user_team}) in a shared channel`,
    );
  }
  const text = event.text ?? '';
  const mentioned =
    event.type === 'app_mention' ||
    (settings.botUserId !== undefined && text.includes(`<@${settings.botUserId}>`));
  if (!mentioned && !event.thread_ts) return ignore('message does not mention Caravel');
  const threadTs = event.thread_ts ?? event.ts;
  return {
    kind: 'trigger',
    source: 'slack',
    event: event.type,
    deliveryId: body.event_id,
    semanticKey: `message:${event.channel}:${event.ts}`,
    threadId: slackThreadId({ team: body.team_id, channel: event.channel, threadTs }),
    author: { externalId: event.user },
    text,
    // `messageTs`: the message that asked, for the 👀 that says it was taken.
    replyTo: { team: body.team_id, channel: event.channel, threadTs, messageTs: event.ts },
    container: event.channel,
    slackMessage: { team: body.team_id, channel: event.channel, ts: event.ts, threadTs },
    ...(mentioned ? {} : { requiresKnownThread: true }),
  };
}

/**
 * An edited or moved message (`message_changed`: the message at its new place, the previous one
 * at its old place, which may name another channel) or a deleted one (`message_deleted`): never
 * a request, only a change the Slack message map follows. Its thread is derived from its place
 * here; the intake looks the message up in the map, and ignores one Caravel never had.
 */
function mapSlackMessageChange(
  body: z.output<typeof eventCallback>,
): RecordDecision | IgnoreDecision {
  const { event, team_id: team } = body;
  const { channel, message, previous_message: previous } = event;
  if (!channel) return ignore(`slack ${event.subtype} without a channel`);
  const record = (threadTs: string) => ({
    kind: 'record' as const,
    source: 'slack' as const,
    event: `message.${event.subtype}`,
    deliveryId: body.event_id,
    semanticKey: null,
    threadId: slackThreadId({ team, channel, threadTs }),
  });
  if (event.subtype === 'message_deleted') {
    const ts = event.deleted_ts ?? previous?.ts;
    if (!ts) return ignore('slack message_deleted without deleted_ts');
    const threadTs = (previous?.['thread_ts'] as string | undefined) ?? ts;
    return {
      ...record(threadTs),
      slackChange: { kind: 'deleted', message: { team, channel, ts } },
    };
  }
  if (!message || !previous) return ignore('slack message_changed without the message');
  const from = { team, channel: previous.channel ?? channel, ts: previous.ts };
  const to = { team, channel, ts: message.ts };
  return { ...record(message.thread_ts ?? message.ts), slackChange: { kind: 'moved', from, to } };
}
