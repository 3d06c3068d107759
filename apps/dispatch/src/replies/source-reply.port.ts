import { isAppError } from '@caravel/errors';
import {
  ChannelClients,
  GitHubApi,
  GitHubCodeHost,
  SourceReplyChannel,
  staticGitHubTokens,
  type ReplyAdapters,
} from '@caravel/integrations';
import type { DispatchSettings } from '../dispatch.settings.js';
import type { ReplyDestination, ReplyOutcome, ReplyPort } from './reply.port.js';

type ReplySettings = Pick<
  DispatchSettings,
  | 'SLACK_BOT_TOKEN'
  | 'SLACK_API_URL'
  | 'LINEAR_API_KEY'
  | 'LINEAR_API_URL'
  | 'JIRA_BASE_URL'
  | 'JIRA_EMAIL'
  | 'JIRA_API_TOKEN'
  | 'CONFLUENCE_EMAIL'
  | 'CONFLUENCE_API_TOKEN'
  | 'GITHUB_TOKEN'
  | 'GITHUB_API_URL'
>;

/** The adapters the settings give credentials for; the others stay absent. */
export function replyAdapters(settings: ReplySettings): ReplyAdapters {
  const adapters = new ChannelClients(settings).replyAdapters({ configuredOnly: true });
  if (settings.GITHUB_TOKEN) {
    const api = new GitHubApi({
      baseUrl: settings.GITHUB_API_URL,
      tokens: staticGitHubTokens(settings.GITHUB_TOKEN),
    });
    adapters.github = (repository) => new GitHubCodeHost(api, repository);
  }
  return adapters;
}

/** Logs where a reply could not go. */
export interface ReplyLogger {
  warn(message: string): void;
}

/**
 * The {@link ReplyPort} over the integrations' `SourceReplyChannel` (idempotent per run and
 * text). A source without credentials, or a thread with nowhere to answer (synthetic), is
 * skipped: one warning per source, and the run's handling goes on. Transport and rate-limit
 * failures are thrown so the message that asked for the reply is retried.
 */
export class SourceReplyPort implements ReplyPort {
  private readonly warned = new Set<string>();

  constructor(
    private readonly adapters: ReplyAdapters,
    private readonly log: ReplyLogger,
  ) {}

  async reply(destination: ReplyDestination, runId: string, text: string): Promise<ReplyOutcome> {
    if (destination.source === 'synthetic') return 'no_channel';
    let channel: SourceReplyChannel;
    try {
      channel = new SourceReplyChannel(destination, this.adapters, runId);
    } catch (error) {
      if (!isAppError(error) || error.code !== 'PRECONDITION_FAILED') throw error;
      this.warnOnce(destination.source, error.message);
      return 'not_configured';
    }
    await channel.reply(text);
    return 'posted';
  }

  private warnOnce(source: string, reason: string): void {
    if (this.warned.has(source)) return;
    this.warned.add(source);
    this.log.warn(
      `replies to ${source} threads are skipped (${reason}); configure its credentials`,
    );
  }
}
