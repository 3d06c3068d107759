import { jiraConfigured, jiraServiceAccount } from '../atlassian/jira-service-account.js';
import type { JiraTracker } from '../atlassian/jira-tracker.js';
import { ConfluenceWiki } from '../confluence/confluence-wiki.js';
import { LinearApi } from '../linear/linear-api.js';
import { LinearTracker } from '../linear/linear-tracker.js';
import type { ChannelSettings } from '../settings/integration.settings.js';
import { SlackApi } from '../slack/slack-api.js';
import { SlackAssistantStatus } from '../slack/slack-assistant-status.js';
import { SlackThread, type SlackThreadRef } from '../slack/slack-thread.js';
import type { ReplyAdapters } from './source-reply-channel.js';

/** The channel settings without the token keyring. */
export type ChannelCredentials = Omit<ChannelSettings, 'CARAVEL_TOKEN_KEYS'>;

/**
 * The Slack, Linear, Jira and Confluence clients the settings describe, built once. A channel
 * without credentials still has its client: every call fails with `PRECONDITION_FAILED` naming
 * the settings. Confluence is per site (each Connect tenant is its own site), one service account.
 */
export class ChannelClients {
  readonly slack: SlackApi;
  readonly linear: LinearTracker;
  readonly jira: JiraTracker;

  constructor(private readonly settings: ChannelCredentials) {
    const s = settings;
    this.slack = new SlackApi({
      botToken: s.SLACK_BOT_TOKEN,
      ...(s.SLACK_API_URL ? { apiUrl: s.SLACK_API_URL } : {}),
    });
    this.linear = new LinearTracker(
      new LinearApi({
        apiKey: s.LINEAR_API_KEY,
        ...(s.LINEAR_API_URL ? { apiUrl: s.LINEAR_API_URL } : {}),
      }),
    );
    this.jira = jiraServiceAccount(s);
  }

  /** The Confluence site at `baseUrl` (its `/wiki` root) as the service account. */
  confluence(baseUrl: string): ConfluenceWiki {
    return new ConfluenceWiki({
      baseUrl,
      email: this.settings.CONFLUENCE_EMAIL,
      apiToken: this.settings.CONFLUENCE_API_TOKEN,
    });
  }

  /** One Slack thread, for replies and the `slack_*` tools. */
  slackThread(thread: SlackThreadRef): SlackThread {
    return new SlackThread(this.slack, thread);
  }

  /** The "is working…" status of one Slack thread. */
  slackStatus(thread: SlackThreadRef): SlackAssistantStatus {
    return new SlackAssistantStatus(this.slack, thread);
  }

  /**
   * Reply adapters for the chat and tracker channels (GitHub is the caller's). With
   * `configuredOnly`, a channel whose credentials are unset is left out, so a reply there is
   * refused up front instead of failing when posted.
   */
  replyAdapters(options: { configuredOnly?: boolean } = {}): ReplyAdapters {
    const s = this.settings;
    const all = !options.configuredOnly;
    return {
      ...(all || s.SLACK_BOT_TOKEN ? { slack: (thread) => this.slackThread(thread) } : {}),
      ...(all || s.LINEAR_API_KEY ? { linear: this.linear } : {}),
      ...(all || jiraConfigured(s) ? { jira: this.jira } : {}),
      ...(all || (s.CONFLUENCE_EMAIL && s.CONFLUENCE_API_TOKEN)
        ? { confluence: (site) => this.confluence(site) }
        : {}),
    };
  }
}
