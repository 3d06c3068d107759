import { isAppError } from '@caravel/errors';
import type { ChannelMessage, SlackThreadPort } from '@caravel/tools';
import type { SlackApi } from './slack-api.js';

/** Where a run's Slack conversation is. */
export interface SlackThreadRef {
  channel: string;
  /** The thread's root message ts. */
  threadTs: string;
  /** The message that asked (reactions default to it); the root when absent. */
  messageTs?: string;
}

/** The metadata event type Caravel's own posts carry, holding their idempotency key. */
export const CARAVEL_SLACK_EVENT = 'caravel_post';

interface SlackMessageJson {
  ts?: string;
  text?: string;
  user?: string;
  bot_id?: string;
  metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
}

/**
 * One Slack thread, as the run's tools and its reply channel use it. Posts with an idempotency
 * key carry it in Slack message metadata and are looked for in the thread before posting again.
 */
export class SlackThread implements SlackThreadPort {
  constructor(
    private readonly api: SlackApi,
    private readonly thread: SlackThreadRef,
  ) {}

  replyInThread(text: string): Promise<{ ts: string }> {
    return this.post(text);
  }

  /** Posts in the thread once per `idempotencyKey` (when given). */
  async post(text: string, idempotencyKey?: string): Promise<{ ts: string }> {
    const { channel, threadTs } = this.thread;
    if (idempotencyKey) {
      const earlier = (await this.rawThread(200)).find(
        (m) => m.metadata?.event_payload?.['idempotency_key'] === idempotencyKey,
      );
      if (earlier?.ts) return { ts: earlier.ts };
    }
    const posted = await this.api.call(`post in thread ${channel}/${threadTs}`, (client) =>
      client.chat.postMessage({
        channel,
        thread_ts: threadTs,
        text,
        mrkdwn: true,
        ...(idempotencyKey
          ? {
              metadata: {
                event_type: CARAVEL_SLACK_EVENT,
                event_payload: { idempotency_key: idempotencyKey },
              },
            }
          : {}),
      }),
    );
    return { ts: posted.ts ?? '' };
  }

  async addReaction(name: string, messageTs?: string): Promise<void> {
    const { channel } = this.thread;
    const timestamp = messageTs ?? this.thread.messageTs ?? this.thread.threadTs;
    try {
      await this.api.call(`react in ${channel}`, (client) =>
        client.reactions.add({ channel, timestamp, name }),
      );
    } catch (error) {
      // Reacting twice is the goal reached, not a failure.
      if (!isAppError(error) || error.details['reason'] !== 'already_reacted') throw error;
    }
  }

  async readThread(limit: number): Promise<ChannelMessage[]> {
    return (await this.rawThread(limit)).map((m) => ({
      id: m.ts ?? '',
      author: m.user ?? m.bot_id ?? 'unknown',
      text: m.text ?? '',
      ...(m.ts ? { at: new Date(Number(m.ts) * 1000).toISOString() } : {}),
      ...(m.bot_id ? { bot: true } : {}),
    }));
  }

  async startThread(channel: string, text: string): Promise<{ channel: string; ts: string }> {
    const posted = await this.api.call(`start a thread in ${channel}`, (client) =>
      client.chat.postMessage({ channel, text, mrkdwn: true }),
    );
    return { channel: posted.channel ?? channel, ts: posted.ts ?? '' };
  }

  private async rawThread(limit: number): Promise<SlackMessageJson[]> {
    const { channel, threadTs } = this.thread;
    const replies = await this.api.call(`read thread ${channel}/${threadTs}`, (client) =>
      client.conversations.replies({ channel, ts: threadTs, limit, include_all_metadata: true }),
    );
    return replies.messages ?? [];
  }
}
