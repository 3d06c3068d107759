import type { StartRunV1, EnvelopeOf } from '@caravel/contracts';
import { SlackMessageRepository, type UserTokenRepository } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import {
  IntegrationAdapters,
  parseKeyring,
  TokenCipher,
  UserTokenVault,
  webPorts,
  type GitHubCodeHost,
  type GitHubScmReader,
  type SlackAssistantStatus,
  type SlackThread,
} from '@caravel/integrations';
import type { ChannelPorts, ReplyChannel, WikiPort } from '@caravel/tools';
import type { Bus } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import type { Sandbox } from '@caravel/sandbox';
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { AGENT_RUNNER_CONFIG, type AgentRunnerConfig } from '../agent-runner.config.js';
import { runInstructionFiles, type InstructionFiles } from '../agent/agents-file-finder.js';
import { RunDispatch } from './run-dispatch.js';
import { RunReviewRequests } from './run-review-requests.js';
import { loggingReplyChannel } from './logging-reply-channel.js';
import { SlackPostRecorder, slackPlaceOf } from './slack-posts.js';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/**
 * The runner's adapters: its integrations' typed slices, and the token vault when a keyring is set
 * (so GitHub acts as the person who asked when they connected their account).
 */
export function runnerIntegrations(
  config: Pick<AgentRunnerConfig, 'integrations' | 'tokenKeys'>,
  userTokens: UserTokenRepository,
): IntegrationAdapters {
  const keys = config.tokenKeys;
  const users = keys ? new UserTokenVault(userTokens, new TokenCipher(parseKeyring(keys))) : null;
  return new IntegrationAdapters(config.integrations, users ? { users } : {});
}

/**
 * The SaaS side of a run, through the integrations' one factory: where its replies go (the
 * thread's source, once per run and text), which channel tools it gets (Slack only for Slack
 * threads, the wiki for Confluence threads), Slack's assistant status, and the GitHub its pull
 * requests are opened on (for repositories on the configured GitHub; see `scm/run-scm.ts` for
 * the choice of SCM). On GitHub the run acts as the person who asked when the vault holds their
 * token, else as the App. A missing credential never stops a run: the integration answers with
 * a coded error naming the setting, and a thread whose source cannot be answered gets a logged
 * warning instead.
 */
@Injectable()
export class RunIntegrationsService {
  private readonly log = new Logger('RunIntegrations');
  /** The missing GitHub App is a setting of the process: said once, not on each call of a run. */
  private saidNoApp = false;

  constructor(
    @Inject(AGENT_RUNNER_CONFIG) private readonly config: AgentRunnerConfig,
    @Inject(IntegrationAdapters) private readonly adapters: IntegrationAdapters,
    @Inject(BUS) private readonly bus: Pick<Bus, 'request' | 'publish'>,
    @Optional()
    @Inject(SlackMessageRepository)
    private readonly slackMessages?: Pick<SlackMessageRepository, 'record'>,
  ) {}

  /** Where the run's replies go: the thread's source, or the log when it has none to answer. */
  replyChannel(run: StartRun): ReplyChannel {
    const { source, replyTo } = run;
    if (!source || source === 'synthetic' || !replyTo) return loggingReplyChannel(run.threadId);
    try {
      const channel = this.adapters.replyChannel(
        { source, replyTo, ...(run.repository ? { repository: run.repository } : {}) },
        run.runId,
        { ...actingFor(run), unconfigured: 'fail-on-post' },
      );
      return this.slackPosts(run)?.replyChannel(channel) ?? channel;
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
    const adapters = this.adapters;
    const slackThread = this.slackThreadOf(run);
    const wiki = this.wikiOf(run);
    const github = this.codeHost(run);
    const reader = this.scmReader(run);
    const dispatch = new RunDispatch(this.bus, run);
    return {
      ...webPorts(this.config.web),
      wakeups: dispatch,
      babySitter: dispatch,
      ...(slackThread
        ? { slack: this.slackPosts(run)?.slackThread(slackThread) ?? slackThread }
        : {}),
      ...(adapters.configured('linear') || run.source === 'linear'
        ? { linear: adapters.tracker('linear') }
        : {}),
      ...(adapters.configured('jira') || run.source === 'jira'
        ? { jira: adapters.tracker('jira') }
        : {}),
      ...(wiki ? { confluence: wiki } : {}),
      ...(github
        ? { reviews: reader ? new RunReviewRequests(github, reader, this.bus, run) : github }
        : {}),
      ...(reader ? { github: reader } : {}),
    };
  }

  /**
   * The read side of GitHub for the run's repository (its pull requests, issues and comments):
   * the `github_*` tools and the pull request a run was asked on; null off the configured GitHub.
   */
  scmReader(run: StartRun): GitHubScmReader | null {
    const repository = run.repository;
    if (!repository || !this.adapters.hosting.isOnHost(repository)) return null;
    return this.adapters.scmReader(repository, actingFor(run).actingFor);
  }

  /**
   * Where the run reads its repository's AGENTS.md files: at `base` (a commit or a branch; the
   * default branch when absent) on GitHub, one listing and then only its AGENTS.md files, else,
   * off the configured GitHub, in `sandbox`.
   */
  instructionFiles(
    run: StartRun,
    base: string | undefined,
    sandbox: Pick<Sandbox, 'readFile'>,
  ): InstructionFiles {
    return runInstructionFiles(this.scmReader(run), base, sandbox, (line) =>
      this.log.warn(`run ${run.runId}: ${line}`),
    );
  }

  /**
   * Slack's "is working…" status under the run's thread (`assistant.threads.setStatus`), as the
   * agent factory's `assistantStatus` input; nothing for other sources.
   */
  assistantStatus(run: StartRun): { assistantStatus?: SlackAssistantStatus } {
    const thread = this.slackRefOf(run);
    return thread ? { assistantStatus: this.adapters.slackStatus(thread) } : {};
  }

  /**
   * Where the run's pull requests are opened: GitHub, for a repository on the configured GitHub
   * that the App can act on; null otherwise (the run then publishes a plain pushed branch).
   */
  pullRequestHost(run: StartRun): GitHubCodeHost | null {
    return this.codeHost(run);
  }

  private codeHost(run: StartRun): GitHubCodeHost | null {
    const repository = run.repository;
    if (!repository || !this.adapters.hosting.isOnHost(repository)) return null;
    const host = this.adapters.codeHost(repository, actingFor(run).actingFor);
    if (!host && run.source === 'github' && !this.saidNoApp) {
      this.saidNoApp = true;
      this.log.warn(
        `thread ${run.threadId}: GITHUB_APP_ID/GITHUB_APP_PRIVATE_KEY unset, so no pull request can be opened on ${repository.owner}/${repository.name}`,
      );
    }
    return host;
  }

  /** Records Caravel's posts in a Slack thread in the message map (a ❌ on one stops it). */
  private slackPosts(run: StartRun): SlackPostRecorder | null {
    const place = slackPlaceOf(run);
    return place && this.slackMessages ? new SlackPostRecorder(this.slackMessages, place) : null;
  }

  private slackRefOf(run: StartRun): { channel: string; threadTs: string } | null {
    const channel = run.replyTo?.['channel'];
    const threadTs = run.replyTo?.['threadTs'];
    if (run.source !== 'slack' || channel === undefined || threadTs === undefined) return null;
    return { channel: String(channel), threadTs: String(threadTs) };
  }

  private slackThreadOf(run: StartRun): SlackThread | null {
    const thread = this.slackRefOf(run);
    return thread ? this.adapters.slackThread(thread) : null;
  }

  /** The Confluence site a Confluence thread came from (its tenant's base URL). */
  private wikiOf(run: StartRun): WikiPort | null {
    const site = run.replyTo?.['site'];
    if (run.source !== 'confluence' || site === undefined) return null;
    return this.adapters.wiki(String(site));
  }
}

/** The GitHub login of the person who asked, when the run came from GitHub. */
function actingFor(run: StartRun): { actingFor?: string } {
  return run.source === 'github' ? { actingFor: run.requestedBy.externalId } : {};
}
