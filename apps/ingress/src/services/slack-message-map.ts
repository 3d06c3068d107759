import { SlackMessageRepository } from '@caravel/db';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ignore, type TriggerDecision, type WebhookDecision } from '../events/webhook-decision.js';

/**
 * The Slack message map (`slack_messages`) at the intake: a Slack request's thread is the one its
 * thread's root is mapped to (so a moved thread, or one whose root was deleted, keeps its thread),
 * else the one derived from its place; a request that reached a thread maps its message and the
 * root; an edit or a move maps the message's new place to its thread, and a deletion marks it
 * without forgetting it. A change to a message Caravel never had is ignored.
 */
@Injectable()
export class SlackMessageMap {
  private readonly log = new Logger('SlackMessageMap');

  constructor(@Inject(SlackMessageRepository) private readonly messages: SlackMessageRepository) {}

  /** Whether {@link resolve} has anything to do for `decision` (a Slack message or change). */
  static concerns(decision: WebhookDecision): boolean {
    if (decision.kind === 'stop' || decision.kind === 'trigger') return !!decision.slackMessage;
    return decision.kind === 'record' && !!decision.slackChange;
  }

  /** The decision on the thread the map knows for its Slack message, or as it came. */
  async resolve(decision: WebhookDecision): Promise<WebhookDecision> {
    if (decision.kind === 'stop' && decision.slackMessage) {
      // A ❌ on a message of a moved thread: its place is not the one the thread id came from.
      const mapped = await this.messages.threadOf(decision.slackMessage);
      return mapped ? { ...decision, threadId: mapped } : decision;
    }
    if (decision.kind === 'trigger' && decision.slackMessage) {
      const { team, channel, threadTs } = decision.slackMessage;
      const mapped = await this.messages.threadOf({ team, channel, ts: threadTs });
      return mapped ? { ...decision, threadId: mapped } : decision;
    }
    if (decision.kind !== 'record' || !decision.slackChange) return decision;
    const change = decision.slackChange;
    const threadId =
      change.kind === 'moved'
        ? await this.messages.follow(change.from, change.to)
        : await this.messages.markDeleted(change.message);
    return threadId ? { ...decision, threadId } : ignore('a Slack message Caravel does not have');
  }

  /**
   * Maps a request's message and its thread's root to the thread it reached. The request is out
   * already: a map that cannot be written is logged, and the next message of the thread maps it.
   */
  async remember(decision: TriggerDecision): Promise<void> {
    const place = decision.slackMessage;
    if (!place) return;
    const { team, channel, ts, threadTs } = place;
    try {
      await this.messages.record({ team, channel, ts: threadTs, threadId: decision.threadId });
      if (ts !== threadTs)
        await this.messages.record({ team, channel, ts, threadId: decision.threadId });
    } catch (error) {
      this.log.warn(`slack ${channel}/${ts}: not mapped to its thread (${String(error)})`);
    }
  }
}
