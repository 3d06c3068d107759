import { z } from 'zod';

import { defineTool, type CaravelTool } from '../core/tool-definition.js';
import type { ReplyChannel } from '../ports/reply-channel.port.js';

/** Longest reply accepted, in characters (Slack refuses longer messages). */
export const MAX_REPLY_CHARS = 40_000;

/** A posted reply. */
export interface ReplyToUserOutput {
  messageId: string;
}

/** `reply_to_user`: answer where the run was asked (Slack thread, PR, issue). */
export function replyToUserTool(channel: ReplyChannel): CaravelTool<ReplyToUserOutput> {
  return defineTool({
    name: 'reply_to_user',
    description:
      'Send a message to the person who asked, in the conversation the request came from ' +
      '(markdown). Use it to answer questions, report results, or ask for what you need.',
    effect: 'reply',
    input: z.strictObject({
      text: z.string().trim().min(1).max(MAX_REPLY_CHARS).describe('The message.'),
    }),
    async run(input) {
      const receipt = await channel.reply(input.text);
      return { messageId: receipt.messageId };
    },
    observe: () => 'Reply sent.',
  });
}
