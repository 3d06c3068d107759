import { isAppError } from '@caravel/errors';
import {
  AtlassianRest,
  GitHubApi,
  GitHubCodeHost,
  JiraTracker,
  LinearApi,
  LinearTracker,
  SlackApi,
  SlackThread,
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
  | 'GITHUB_TOKEN'
  | 'GITHUB_API_URL'
>;

/** The adapters the settings give credentials for; the others stay absent. */
export function replyAdapters(settings: ReplySettings): ReplyAdapters {
  const adapters: ReplyAdapters = {};
  if (settings.GITHUB_TOKEN) {
    const api = new GitHubApi({
      baseUrl: settings.GITHUB_API_URL,
      tokens: staticGitHubTokens(settings.GITHUB_TOKEN),
    });
    adapters.github = (repository) => new GitHubCodeHost(api, repository);
  }
  if (settings.SLACK_BOT_TOKEN) {
    const api = new SlackApi({
      botToken: settings.SLACK_BOT_TOKEN,
      ...(settings.SLACK_API_URL ? { apiUrl: settings.SLACK_API_URL } : {}),
    });
    adapters.slack = (thread) => new SlackThread(api, thread);
  }
  if (settings.LINEAR_API_KEY) {
    adapters.linear = new LinearTracker(
      new LinearApi({
        apiKey: settings.LINEAR_API_KEY,
        ...(settings.LINEAR_API_URL ? { apiUrl: settings.LINEAR_API_URL } : {}),
      }),
    );
  }
  const { JIRA_BASE_URL: site, JIRA_EMAIL: email, JIRA_API_TOKEN: apiToken } = settings;
  if (site && email && apiToken) {
    const rest = new AtlassianRest({
      service: 'Jira',
      baseUrl: site,
      email,
      apiToken,
      settings: 'JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN',
    });
    adapters.jira = new JiraTracker(rest, site);
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
