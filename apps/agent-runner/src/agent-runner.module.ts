import {
  BudgetLimitRepository,
  BudgetPauseRepository,
  FindingRepository,
  RepositoryInstructionsRepository,
  RunNoticeRepository,
  RunEventRepository,
  RunRepository,
  SlackMessageRepository,
  ThreadMessageRepository,
  ThreadPlanRepository,
  TeamDefaultsRepository,
  ThreadRepository,
  UserInstructionsRepository,
  UserProfileRepository,
  UserTokenRepository,
} from '@caravel/db';
import { IntegrationAdapters } from '@caravel/integrations';
import type { Bus } from '@caravel/messaging';
import { BUS, RUNTIME, repositoryProvider, type PlatformRuntime } from '@caravel/platform';
import type { ToolBundle } from '@caravel/sandbox';
import { Module, type DynamicModule } from '@nestjs/common';
import { AgentFactoryService } from './agent/agent-factory.service.js';
import { AgentKitLoader } from './agent/agent-kit.loader.js';
import { RunBudgets } from './agent/budget-of-run.js';
import { CheckpointerService } from './agent/checkpointer.service.js';
import { RunModels } from './agent/run-models.js';
import { SandboxLossNotice } from './agent/sandbox-loss.notice.js';
import { TeamSettings } from './agent/team-settings.js';
import { RunToolBundles } from './agent/tool-bundles.js';
import { AGENT_RUNNER_CONFIG, type AgentRunnerConfig } from './agent-runner.config.js';
import { AgentChatHandler } from './handlers/agent-chat.handler.js';
import { ReplayRunHandler } from './replay/replay-run.handler.js';
import { ReplayService } from './replay/replay.service.js';
import { StartRunHandler } from './handlers/start-run.handler.js';
import {
  RunIntegrationsService,
  runnerIntegrations,
} from './integrations/run-integrations.service.js';
import { ThreadSandboxService } from './sandbox/thread-sandbox.service.js';
import { RunWorkspaces } from './sandbox/run-workspaces.js';
import { RunSubjectService } from './scm/run-subject.service.js';
import { AttemptsService } from './services/attempts.service.js';
import { ChatAgentService } from './services/chat-agent.service.js';
import { LeaseKeeper } from './services/lease-keeper.js';
import { PullRequestChatService } from './services/pr-chat.service.js';
import { RunEventPublisher } from './services/run-events.js';
import { RunExecutorService } from './services/run-executor.service.js';
import { RunFollowUps } from './services/run-follow-ups.service.js';

/** Builds and runs the coding agent per run. */
@Module({})
export class AgentRunnerModule {
  /** @param toolBundles SWE-agent tool bundles every run installs (the embedded `caravel run`). */
  static register(
    config: AgentRunnerConfig,
    toolBundles: readonly ToolBundle[] = [],
  ): DynamicModule {
    return {
      module: AgentRunnerModule,
      controllers: [StartRunHandler, AgentChatHandler, ReplayRunHandler],
      providers: [
        { provide: AGENT_RUNNER_CONFIG, useValue: config },
        RunExecutorService,
        { provide: RunToolBundles, useValue: new RunToolBundles(toolBundles) },
        {
          provide: LeaseKeeper,
          inject: [BUS, RunRepository, RUNTIME],
          useFactory: (bus: Bus, runs: RunRepository, runtime: PlatformRuntime) =>
            new LeaseKeeper(bus.leases, runs, runtime.name),
        },
        RunEventPublisher,
        RunFollowUps,
        AttemptsService,
        ChatAgentService,
        PullRequestChatService,
        repositoryProvider(FindingRepository),
        repositoryProvider(ThreadRepository),
        repositoryProvider(UserProfileRepository),
        AgentFactoryService,
        AgentKitLoader,
        RunModels,
        CheckpointerService,
        ThreadSandboxService,
        repositoryProvider(ThreadMessageRepository),
        repositoryProvider(UserTokenRepository),
        repositoryProvider(ThreadPlanRepository),
        repositoryProvider(UserInstructionsRepository),
        repositoryProvider(TeamDefaultsRepository),
        repositoryProvider(RepositoryInstructionsRepository),
        TeamSettings,
        repositoryProvider(BudgetLimitRepository),
        repositoryProvider(BudgetPauseRepository),
        repositoryProvider(SlackMessageRepository),
        RunBudgets,
        repositoryProvider(RunNoticeRepository),
        repositoryProvider(RunRepository),
        SandboxLossNotice,
        {
          provide: IntegrationAdapters,
          inject: [UserTokenRepository],
          useFactory: (userTokens: UserTokenRepository) => runnerIntegrations(config, userTokens),
        },
        RunIntegrationsService,
        RunSubjectService,
        RunWorkspaces,
        ReplayService,
        repositoryProvider(RunEventRepository),
      ],
    };
  }
}
