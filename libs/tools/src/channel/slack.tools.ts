import { z } from 'zod';
import type { CaravelTool } from '../core/tool-definition.js';
import { MAX_REPLY_CHARS } from '../tools/reply-to-user.tool.js';
import type { ChannelMessage, SlackThreadPort } from './channel.ports.js';
import { defineChannelTool, renderChannelMessages } from './channel-tool.js';

const slackText = z.string().trim().min(1).max(MAX_REPLY_CHARS);
const emoji = z
  .string()
  .trim()
  .regex(/^:?[a-z0-9_+'-]+:?$/, 'an emoji name such as eyes or white_check_mark')
  .transform((name) => name.replace(/^:|:$/g, ''));

/** `slack_thread_reply`: post in the Slack thread the run came from. */
export function slackThreadReplyTool(slack: SlackThreadPort): CaravelTool<{ ts: string }> {
  return defineChannelTool({
    name: 'slack_thread_reply',
    description: 'Reply in the Slack thread this request came from (Slack markdown).',
    effect: 'reply',
    input: z.strictObject({ text: slackText.describe('The message.') }),
    run: (input) => slack.replyInThread(input.text),
    observe: (output) => `Replied in the Slack thread (ts ${output.ts}).`,
  });
}

/** `slack_add_reaction`: react to a message of the run's thread. */
export function slackAddReactionTool(slack: SlackThreadPort): CaravelTool<{ name: string }> {
  return defineChannelTool({
    name: 'slack_add_reaction',
    description:
      'Add an emoji reaction to a message in this Slack thread (by default the message that ' +
      'asked you), e.g. eyes to acknowledge or white_check_mark when done.',
    effect: 'reply',
    input: z.strictObject({
      emoji: emoji.describe('Emoji name, without colons.'),
      message_ts: z
        .string()
        .trim()
        .min(1)
        .optional()
        .describe('The message ts; omit for the request.'),
    }),
    async run(input) {
      await slack.addReaction(input.emoji, input.message_ts);
      return { name: input.emoji };
    },
    observe: (output) => `Reacted with :${output.name}:.`,
  });
}

/** `slack_read_thread_messages`: read the run's thread (marked untrusted). */
export function slackReadThreadTool(slack: SlackThreadPort): CaravelTool<ChannelMessage[]> {
  return defineChannelTool({
    name: 'slack_read_thread_messages',
    description: 'Read the messages of this Slack thread, oldest first.',
    effect: 'read',
    input: z.strictObject({
      limit: z.number().int().min(1).max(200).default(50).describe('At most this many messages.'),
    }),
    run: (input) => slack.readThread(input.limit),
    observe: (messages) => renderChannelMessages('slack thread', messages),
  });
}

/** `slack_start_new_thread`: post a new top-level message in a channel. */
export function slackStartThreadTool(
  slack: SlackThreadPort,
): CaravelTool<{ channel: string; ts: string }> {
  return defineChannelTool({
    name: 'slack_start_new_thread',
    description: 'Start a new Slack thread: post a top-level message in a channel (by id).',
    effect: 'reply',
    input: z.strictObject({
      channel: z
        .string()
        .trim()
        .regex(/^[CGD][A-Z0-9]+$/, 'a Slack channel id such as C0123ABC'),
      text: slackText.describe('The message.'),
    }),
    run: (input) => slack.startThread(input.channel, input.text),
    observe: (output) => `Started a thread in ${output.channel} (ts ${output.ts}).`,
  });
}

/** The Slack tools, for runs that came from Slack. */
export function slackTools(slack: SlackThreadPort): CaravelTool[] {
  return [
    slackThreadReplyTool(slack),
    slackAddReactionTool(slack),
    slackReadThreadTool(slack),
    slackStartThreadTool(slack),
  ];
}
