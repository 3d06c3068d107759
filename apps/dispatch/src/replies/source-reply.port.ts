import type { SlackMessageRepository } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import {
  IntegrationAdapters,
  type IntegrationsConfig,
  type SourceReplyChannel,
} from '@caravel/integrations';
import type { ReplyDestination, ReplyOutcome, ReplyPort } from './reply.port.js';

/** Logs where a reply could not go. */
export interface ReplyLogger {
  warn(message: string): void;
}

/**
 * The {@link ReplyPort} over the integrations' reply channels (`IntegrationAdapters`, idempotent
 * per run and text; on GitHub as the App, or the development token without one). A source
 * without credentials, or a thread with nowhere to answer (synthetic), is skipped: one warning
 * per source, and the run's handling goes on. Transport and rate-limit failures are thrown so the
 * message that asked for the reply is retried. A reply posted in a Slack thread is recorded in
 * the Slack message map under its thread (when the map is given and the thread's workspace is
 * known), so a ❌ on dispatch's notice stops the thread as a ❌ on the person's message does.
 */
export class SourceReplyPort implements ReplyPort {
  private readonly warned = new Set<string>();

  constructor(
    private readonly adapters: Pick<IntegrationAdapters, 'replyChannel' | 'acknowledge'>,
    private readonly log: ReplyLogger,
    private readonly slackMessages?: Pick<SlackMessageRepository, 'record'>,
  ) {}

  async reply(destination: ReplyDestination, runId: string, text: string): Promise<ReplyOutcome> {
    if (destination.source === 'synthetic') return 'no_channel';
    let channel: SourceReplyChannel;
    try {
      channel = this.adapters.replyChannel(destination, runId);
    } catch (error) {
      if (!isAppError(error) || error.code !== 'PRECONDITION_FAILED') throw error;
      this.warnOnce(destination.source, error.message);
      return 'not_configured';
    }
    const receipt = await channel.reply(text);
    await this.mapSlackPost(destination, receipt.messageId);
    return 'posted';
  }

  /** Maps a Slack post to its thread; the post stands when the map cannot be written. */
  private async mapSlackPost(destination: ReplyDestination, ts: string): Promise<void> {
    const { source, replyTo, threadId } = destination;
    const team = replyTo['team'];
    const channel = replyTo['channel'];
    if (source !== 'slack' || !this.slackMessages || !threadId || !ts) return;
    if (team === undefined || channel === undefined) return;
    const place = { team: String(team), channel: String(channel), ts };
    try {
      await this.slackMessages.record({ ...place, threadId });
    } catch (error) {
      this.log.warn(
        `slack ${place.channel}/${ts}: notice not mapped to ${threadId} (${String(error)})`,
      );
    }
  }

  async acknowledge(destination: ReplyDestination): Promise<ReplyOutcome> {
    if (destination.source === 'synthetic') return 'no_channel';
    switch (await this.adapters.acknowledge(destination)) {
      case 'reacted':
        return 'posted';
      case 'no_target':
        return 'no_channel';
      case 'not_configured':
        this.warnOnce(destination.source, `no credentials for ${destination.source}`);
        return 'not_configured';
    }
  }

  private warnOnce(source: string, reason: string): void {
    if (this.warned.has(source)) return;
    this.warned.add(source);
    this.log.warn(
      `replies to ${source} threads are skipped (${reason}); configure its credentials`,
    );
  }
}

/** Dispatch's reply port, from its integrations' configuration. */
export function sourceReplyPort(
  config: IntegrationsConfig,
  log: ReplyLogger,
  slackMessages?: Pick<SlackMessageRepository, 'record'>,
): ReplyPort {
  return new SourceReplyPort(new IntegrationAdapters(config), log, slackMessages);
}
