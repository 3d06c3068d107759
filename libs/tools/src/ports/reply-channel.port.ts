/**
 * Where the agent answers the person who asked: the Slack thread, the PR conversation, the Linear
 * issue the run came from. The runner binds it to the run's source; the tool only sees `reply`.
 */
export interface ReplyChannel {
  /** Posts a message; resolves once the channel accepted it. */
  reply(text: string): Promise<ReplyReceipt>;
}

/** What the channel returns for a posted message. */
export interface ReplyReceipt {
  /** The channel's id for the message (a Slack ts, a comment id). */
  messageId: string;
}
