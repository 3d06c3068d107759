import type { StartRunV1, EnvelopeOf } from '@caravel/contracts';
import type { SlackMessageRepository } from '@caravel/db';
import type { ReplyChannel, SlackThreadPort } from '@caravel/tools';
import { Logger } from '@nestjs/common';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/** Where a Slack run's thread is: its workspace and channel, and Caravel's thread id. */
export interface SlackPlace {
  team: string;
  channel: string;
  threadId: string;
}

/** The Slack place of a run from a Slack thread whose trigger named its workspace; else null. */
export function slackPlaceOf(
  run: Pick<StartRun, 'source' | 'replyTo' | 'threadId'>,
): SlackPlace | null {
  const team = run.replyTo?.['team'];
  const channel = run.replyTo?.['channel'];
  if (run.source !== 'slack' || team === undefined || channel === undefined) return null;
  return { team: String(team), channel: String(channel), threadId: run.threadId };
}

/**
 * Records each message Caravel posts in a Slack thread in the Slack message map
 * (`slack_messages`), so that a ❌ a person puts on one of Caravel's own replies stops the thread
 * as a ❌ on their own message does (ingress resolves the reaction's message through the map).
 * The post has happened already: a map that cannot be written is logged, and the post stands.
 */
export class SlackPostRecorder {
  private readonly log = new Logger('SlackPosts');

  constructor(
    private readonly messages: Pick<SlackMessageRepository, 'record'>,
    private readonly place: SlackPlace,
  ) {}

  /** The reply channel, each reply it posts recorded. */
  replyChannel(inner: ReplyChannel): ReplyChannel {
    return {
      reply: async (text) => {
        const receipt = await inner.reply(text);
        await this.posted(receipt.messageId);
        return receipt;
      },
    };
  }

  /** The run's Slack tools' thread, each message they post in it recorded. */
  slackThread(inner: SlackThreadPort): SlackThreadPort {
    return {
      replyInThread: async (text) => {
        const posted = await inner.replyInThread(text);
        await this.posted(posted.ts);
        return posted;
      },
      addReaction: (name, messageTs) => inner.addReaction(name, messageTs),
      readThread: (limit) => inner.readThread(limit),
      // Another thread, elsewhere: not this thread's message.
      startThread: (channel, text) => inner.startThread(channel, text),
    };
  }

  private async posted(ts: string): Promise<void> {
    if (!ts) return;
    const { team, channel, threadId } = this.place;
    try {
      await this.messages.record({ team, channel, ts, threadId });
    } catch (error) {
      this.log.warn(
        `slack ${channel}/${ts}: Caravel's post not mapped to ${threadId} (${String(error)})`,
      );
    }
  }
}
