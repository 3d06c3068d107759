import { jiraServiceAccount } from '../atlassian/jira-service-account.js';
import type { JiraTracker } from '../atlassian/jira-tracker.js';
import { ConfluenceWiki } from '../confluence/confluence-wiki.js';
import { GitHubApi, type GitHubTokenProvider } from '../github/github-client.js';
import { GitHubCodeHost } from '../github/github-code-host.js';
import { GitHubCredentials, type UserTokenReader } from '../github/github-credentials.js';
import { GitHubScmReader } from '../github/github-scm-reader.js';
import { GitHubHosting, type HostedRepositoryRef } from '../github/github-hosting.js';
import { GitHubOrgMembership, GitHubOrgStandings } from '../github/github-org-membership.js';
import { GitHubRepositoryAccess } from '../github/github-repository-access.js';
import { GitHubReviews } from '../github/github-reviews.js';
import { LinearApi } from '../linear/linear-api.js';
import { LinearTracker } from '../linear/linear-tracker.js';
import { acknowledgeReceipt, type ReceiptOutcome } from '../reply/source-receipt.js';
import {
  SourceReplyChannel,
  type ReplyAdapters,
  type ThreadSource,
} from '../reply/source-reply-channel.js';
import { SlackApi } from '../slack/slack-api.js';
import { SlackAssistantStatus } from '../slack/slack-assistant-status.js';
import { SlackThread, type SlackThreadRef } from '../slack/slack-thread.js';
import type { IntegrationsConfig } from './integrations.config.js';

/** The external systems Caravel has adapters for. */
export type ExternalSystem = 'github' | 'slack' | 'linear' | 'jira' | 'confluence';

/** What the factory needs beyond the configuration. */
export interface IntegrationAdaptersOptions {
  /** People's own tokens (the encrypted vault): GitHub acts for a person with theirs first. */
  users?: UserTokenReader;
  /** Milliseconds since the epoch (App JWTs, token expiry); injected by tests. */
  now?: () => number;
}

/** How one reply channel is built. */
export interface ReplyChannelOptions {
  /** The GitHub login the reply is made for: their own token when the vault holds one. */
  actingFor?: string;
  /**
   * A chat or tracker source whose credentials are unset: `refuse` (the default) throws
   * `PRECONDITION_FAILED` when the channel is asked for; `fail-on-post` builds it, and each post
   * fails with `PRECONDITION_FAILED` naming the settings (an agent's reply tool shows it). GitHub
   * without any credential is refused either way.
   */
  unconfigured?: 'refuse' | 'fail-on-post';
}

/**
 * The one way an app reaches an external system: reply channels for a thread's source, the code
 * host of a repository, the trackers, the wiki and Slack threads, all from typed configuration
 * and one GitHub credential model — the person's own token (from the vault, when `actingFor`
 * names someone who connected their account), else the GitHub App's installation token for the
 * repository, else, in development only, the static token. A system without credentials still
 * has its client (calls fail with `PRECONDITION_FAILED` naming the settings) unless said otherwise.
 */
export class IntegrationAdapters {
  /** Which repositories live on the configured GitHub, and the App. */
  readonly hosting: GitHubHosting;
  private readonly credentials: GitHubCredentials;
  private readonly slack: SlackApi;
  private readonly linear: LinearTracker;
  private readonly jira: JiraTracker;

  constructor(
    private readonly config: IntegrationsConfig,
    options: IntegrationAdaptersOptions = {},
  ) {
    this.hosting = new GitHubHosting(config.github, options.now);
    const app = this.hosting.app;
    const token = config.github.developmentToken;
    this.credentials = new GitHubCredentials({
      ...(options.users ? { users: options.users } : {}),
      ...(app ? { app } : {}),
      ...(token ? { developmentToken: token } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    this.slack = new SlackApi({ botToken: config.slack.botToken, ...optional(config.slack) });
    this.linear = new LinearTracker(
      new LinearApi({ apiKey: config.linear.apiKey, ...optional(config.linear) }),
    );
    this.jira = jiraServiceAccount(config.jira);
  }

  /** Whether the system has its credentials (GitHub: the App, or the development token). */
  configured(system: ExternalSystem): boolean {
    const c = this.config;
    switch (system) {
      case 'github':
        return this.hosting.app !== null || Boolean(c.github.developmentToken);
      case 'slack':
        return Boolean(c.slack.botToken);
      case 'linear':
        return Boolean(c.linear.apiKey);
      case 'jira':
        return Boolean(c.jira.baseUrl && c.jira.email && c.jira.apiToken);
      case 'confluence':
        return Boolean(c.confluence.email && c.confluence.apiToken);
    }
  }

  /**
   * Where a reply to `thread` goes (its source, once per run and text), or `PRECONDITION_FAILED`
   * saying what is missing (see {@link ReplyChannelOptions.unconfigured}).
   */
  replyChannel(
    thread: ThreadSource,
    runId: string,
    options: ReplyChannelOptions = {},
  ): SourceReplyChannel {
    return new SourceReplyChannel(thread, this.replyAdapters(options), runId);
  }

  /**
   * Acknowledges the message that started a run with 👀 (GitHub comment or review comment, Slack
   * message, Linear comment), as the App or the bot; see {@link acknowledgeReceipt}.
   */
  acknowledge(thread: ThreadSource): Promise<ReceiptOutcome> {
    return acknowledgeReceipt(thread, this.replyAdapters({}));
  }

  /** The GitHub tokens to act with, for `actingFor` when they connected their account. */
  githubTokens(actingFor?: string): GitHubTokenProvider {
    return this.credentials.providerFor(actingFor);
  }

  /**
   * The code host of a repository on the configured GitHub that the App can act on (pull
   * requests, review requests, comments); null for any other repository, or without the App.
   */
  codeHost(repository: HostedRepositoryRef | undefined, actingFor?: string): GitHubCodeHost | null {
    if (!repository || !this.hosting.hosts(repository)) return null;
    return new GitHubCodeHost(this.githubApi(actingFor), repository);
  }

  /**
   * The read side of GitHub for a repository on the configured GitHub (pull requests, issues,
   * their comments): null for any other repository, or without the App.
   */
  scmReader(
    repository: HostedRepositoryRef | undefined,
    actingFor?: string,
  ): GitHubScmReader | null {
    if (!repository || !this.hosting.hosts(repository)) return null;
    return new GitHubScmReader(this.githubApi(actingFor), repository);
  }

  /**
   * A repository's review history (merged pull requests, their review comments) for the
   * analyzer, read with the reviewer's credential model ({@link reviews}): null without any GitHub
   * credential, or for a repository the App is not on.
   */
  scmHistory(repository: HostedRepositoryRef | undefined): GitHubScmReader | null {
    if (!repository || !this.configured('github')) return null;
    if (this.hosting.app !== null && !this.hosting.hosts(repository)) return null;
    return new GitHubScmReader(this.githubApi(), repository);
  }

  /**
   * What the reviewer publishes on a repository (reviews, review comments and threads, check
   * runs), with the one credential model: the person's own token when `actingFor` connected
   * their account, else the App's installation token for a repository on the configured GitHub,
   * else, in development only (no App), the static token. Null without any GitHub credential, or
   * for a repository the App is not on.
   */
  reviews(repository: HostedRepositoryRef | undefined, actingFor?: string): GitHubReviews | null {
    if (!repository || !this.configured('github')) return null;
    if (this.hosting.app !== null && !this.hosting.hosts(repository)) return null;
    return new GitHubReviews(this.githubApi(actingFor));
  }

  /** Organization membership, asked as the App; null without the App. */
  orgMembership(): GitHubOrgMembership | null {
    return this.hosting.app ? new GitHubOrgMembership(this.githubApi()) : null;
  }

  /**
   * Who belongs to an organization and as what, asked as the App with a members-only token of its
   * installation there (answers kept `keepMs`, five minutes unless told); null without the App.
   */
  orgStandings(keepMs?: number): GitHubOrgStandings | null {
    const app = this.hosting.app;
    const options = keepMs === undefined ? {} : { keepMs };
    return app ? new GitHubOrgStandings(this.githubApi(), app, options) : null;
  }

  /**
   * What a GitHub user may do on a repository, asked with the App's installation token (or, in
   * development, the static token); null without any GitHub credential.
   */
  repositoryAccess(): GitHubRepositoryAccess | null {
    return this.configured('github') ? new GitHubRepositoryAccess(this.githubApi()) : null;
  }

  /** The tracker of a tracker source, as its service account or API key. */
  tracker(source: 'linear'): LinearTracker;
  tracker(source: 'jira'): JiraTracker;
  tracker(source: 'linear' | 'jira'): LinearTracker | JiraTracker {
    return source === 'linear' ? this.linear : this.jira;
  }

  /** The Confluence site at `site` (its `/wiki` root) as the service account. */
  wiki(site: string): ConfluenceWiki {
    const { email, apiToken } = this.config.confluence;
    return new ConfluenceWiki({ baseUrl: site, email, apiToken });
  }

  /** One Slack thread, for replies and the `slack_*` tools. */
  slackThread(thread: SlackThreadRef): SlackThread {
    return new SlackThread(this.slack, thread);
  }

  /** The "is working…" status of one Slack thread. */
  slackStatus(thread: SlackThreadRef): SlackAssistantStatus {
    return new SlackAssistantStatus(this.slack, thread);
  }

  private githubApi(actingFor?: string): GitHubApi {
    return new GitHubApi({ baseUrl: this.hosting.apiUrl, tokens: this.githubTokens(actingFor) });
  }

  private replyAdapters(options: ReplyChannelOptions): ReplyAdapters {
    const all = options.unconfigured === 'fail-on-post';
    const has = (system: ExternalSystem) => all || this.configured(system);
    const api = this.configured('github') ? this.githubApi(options.actingFor) : null;
    return {
      ...(api ? { github: (repository) => new GitHubCodeHost(api, repository) } : {}),
      ...(has('slack') ? { slack: (thread) => this.slackThread(thread) } : {}),
      ...(has('linear') ? { linear: this.linear } : {}),
      ...(has('jira') ? { jira: this.jira } : {}),
      ...(has('confluence') ? { confluence: (site) => this.wiki(site) } : {}),
    };
  }
}

/** The `apiUrl` of a slice, when it has one. */
function optional(slice: { apiUrl?: string }): { apiUrl?: string } {
  return slice.apiUrl ? { apiUrl: slice.apiUrl } : {};
}
