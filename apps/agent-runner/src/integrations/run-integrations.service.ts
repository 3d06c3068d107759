import type { RepositoryRef, StartRunV1, EnvelopeOf } from '@caravel/contracts';
import { UserTokenRepository } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import {
  ChannelClients,
  GitHubApi,
  GitHubCodeHost,
  GitHubCredentials,
  GitHubHosting,
  parseKeyring,
  SlackThread,
  SourceReplyChannel,
  TokenCipher,
  UserTokenVault,
  webPorts,
  type ReplyAdapters,
  type SlackAssistantStatus,
} from '@caravel/integrations';
import type { ChannelPorts, ReplyChannel, WikiPort } from '@caravel/tools';
import type { Bus } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AGENT_SETTINGS, type AgentSettings } from '../agent-runner.settings.js';
import { DispatchWakeups } from './dispatch-wakeups.js';
import { loggingReplyChannel } from './logging-reply-channel.js';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/**
 * The SaaS side of a run, from the runner's settings: where its replies go (the thread's source,
 * once per run and text), which channel tools it gets (Slack only for Slack threads, the wiki for
 * Confluence threads), Slack's assistant status, and the GitHub its pull requests are opened on
 * (for repositories on the configured GitHub; see `scm/run-scm.ts` for the choice of SCM).
 * A missing credential never stops a run: the integration answers with a coded error naming the
 * setting, and a thread whose source cannot be answered gets a logged warning instead.
 */
@Injectable()
export class RunIntegrationsService {
  private readonly log = new Logger('RunIntegrations');
  private readonly hosting: GitHubHosting;
  private readonly credentials: GitHubCredentials;
  private readonly channels: ChannelClients;

  constructor(
    @Inject(AGENT_SETTINGS) private readonly settings: AgentSettings,
    @Inject(UserTokenRepository) userTokens: UserTokenRepository,
    @Inject(BUS) private readonly bus: Pick<Bus, 'request'>,
  ) {
    const s = settings;
    this.hosting = new GitHubHosting(s);
    const users = s.CARAVEL_TOKEN_KEYS
      ? new UserTokenVault(userTokens, new TokenCipher(parseKeyring(s.CARAVEL_TOKEN_KEYS)))
      : undefined;
    this.credentials = new GitHubCredentials({
      ...(users ? { users } : {}),
      ...(this.hosting.app ? { app: this.hosting.app } : {}),
    });
    this.channels = new ChannelClients(s);
  }

  /** Where the run's replies go: the thread's source, or the log when it has none to answer. */
  replyChannel(run: StartRun): ReplyChannel {
    const { source, replyTo } = run;
    if (!source || source === 'synthetic' || !replyTo) return loggingReplyChannel(run.threadId);
    try {
      return new SourceReplyChannel(
        { source, replyTo, ...(run.repository ? { repository: run.repository } : {}) },
        this.replyAdapters(run),
        run.runId,
      );
    } catch (error) {
      if (!isAppError(error)) throw error;
      this.log.warn(`thread ${run.threadId}: replies are only logged (${error.message})`);
      return loggingReplyChannel(run.threadId);
    }
  }

  /**
   * The channel tools of a run: Slack's for Slack threads, the wiki's for Confluence threads (on
   * their site), trackers, review requests.
   */
  channelPorts(run: StartRun): ChannelPorts {
    const s = this.settings;
    const slackThread = this.slackThreadOf(run);
    const wiki = this.wikiOf(run);
    const github = this.codeHost(run.repository, run);
    return {
      ...webPorts(s),
      wakeups: new DispatchWakeups(this.bus, run),
      ...(slackThread ? { slack: slackThread } : {}),
      ...(s.LINEAR_API_KEY || run.source === 'linear' ? { linear: this.channels.linear } : {}),
      ...(s.JIRA_BASE_URL || run.source === 'jira' ? { jira: this.channels.jira } : {}),
      ...(wiki ? { confluence: wiki } : {}),
      ...(github ? { reviews: github } : {}),
    };
  }

  /**
   * Slack's "is working…" status under the run's thread (`assistant.threads.setStatus`), as the
   * agent factory's `assistantStatus` input; nothing for other sources.
   */
  assistantStatus(run: StartRun): { assistantStatus?: SlackAssistantStatus } {
    const thread = this.slackRefOf(run);
    return thread ? { assistantStatus: this.channels.slackStatus(thread) } : {};
  }

  /**
   * Where the run's pull requests are opened: GitHub, for a repository on the configured GitHub
   * that the App can act on; null otherwise (the run then publishes a plain pushed branch).
   */
  pullRequestHost(run: StartRun): GitHubCodeHost | null {
    return this.codeHost(run.repository, run);
  }

  private codeHost(repository: RepositoryRef | undefined, run: StartRun): GitHubCodeHost | null {
    if (!repository || !this.hosting.isOnHost(repository)) return null;
    if (!this.hosting.hosts(repository)) {
      if (run.source === 'github') {
        this.log.warn(
          `thread ${run.threadId}: GITHUB_APP_ID/GITHUB_APP_PRIVATE_KEY unset, so no pull request can be opened on ${repository.owner}/${repository.name}`,
        );
      }
      return null;
    }
    return this.githubAdapter(run)(repository);
  }

  private githubAdapter(run: StartRun): (repository: RepositoryRef) => GitHubCodeHost {
    const login = run.source === 'github' ? run.requestedBy.externalId : undefined;
    const api = new GitHubApi({
      baseUrl: this.hosting.apiUrl,
      tokens: this.credentials.providerFor(login),
    });
    return (repository) => new GitHubCodeHost(api, repository);
  }

  private slackRefOf(run: StartRun): { channel: string; threadTs: string } | null {
    const channel = run.replyTo?.['channel'];
    const threadTs = run.replyTo?.['threadTs'];
    if (run.source !== 'slack' || channel === undefined || threadTs === undefined) return null;
    return { channel: String(channel), threadTs: String(threadTs) };
  }

  private slackThreadOf(run: StartRun): SlackThread | null {
    const thread = this.slackRefOf(run);
    return thread ? this.channels.slackThread(thread) : null;
  }

  /** The Confluence site a Confluence thread came from (its tenant's base URL). */
  private wikiOf(run: StartRun): WikiPort | null {
    const site = run.replyTo?.['site'];
    if (run.source !== 'confluence' || site === undefined) return null;
    return this.channels.confluence(String(site));
  }

  private replyAdapters(run: StartRun): ReplyAdapters {
    return {
      ...(this.hosting.app ? { github: this.githubAdapter(run) } : {}),
      ...this.channels.replyAdapters(),
    };
  }
}
