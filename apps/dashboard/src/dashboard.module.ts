import {
  BudgetLimitRepository,
  BudgetPauseRepository,
  CiWatchRepository,
  DashboardSessionRepository,
  EnabledRepositoryRepository,
  EvalProposalRepository,
  EvalReviewCaseRepository,
  EvalRunRepository,
  EvalScheduleRepository,
  FindingRepository,
  OpsRepository,
  PersonalTokenRepository,
  SignInPinRepository,
  ReviewedPullRequestRepository,
  ReviewStyleRepository,
  RunEventRepository,
  RunQueueRepository,
  IdentityRepository,
  RepositoryInstructionsRepository,
  RunRepository,
  TeamDefaultsRepository,
  ThreadPlanRepository,
  ThreadRepository,
  UserInstructionsRepository,
  UserProfileRepository,
} from '@caravel/db';
import type { RepositoryPermissionLookup } from '@caravel/integrations';
import { repositoryProvider } from '@caravel/platform';
import {
  Module,
  RequestMethod,
  type DynamicModule,
  type MiddlewareConsumer,
  type NestModule,
} from '@nestjs/common';
import { ApiHeadersMiddleware } from './api/api-headers.middleware.js';
import { CallerResolver } from './auth/caller.resolver.js';
import { CorsMiddleware } from './auth/cors.middleware.js';
import { ActionGuard, AdminGuard, ReadGuard } from './auth/guards.js';
import { SignInService } from './auth/sign-in.service.js';
import { REPOSITORY_PERMISSIONS, ThreadAccessPolicy } from './auth/thread-access.policy.js';
import { AuthController } from './controllers/auth.controller.js';
import { BudgetsController } from './controllers/budgets.controller.js';
import { DeadLettersController } from './controllers/dead-letters.controller.js';
import { DocsController } from './controllers/docs.controller.js';
import { EvalSchedulesController } from './controllers/evals-schedules.controller.js';
import { EvalsController } from './controllers/evals.controller.js';
import { IdentitiesController } from './controllers/identities.controller.js';
import { InstructionsController } from './controllers/instructions.controller.js';
import { OpsController } from './controllers/ops.controller.js';
import { ProfilesController } from './controllers/profiles.controller.js';
import { ReplaysController } from './controllers/replays.controller.js';
import { RepositoriesController } from './controllers/repositories.controller.js';
import { ReviewStylesController } from './controllers/review-styles.controller.js';
import { PersonalTokensController } from './controllers/personal-tokens.controller.js';
import { ReviewsController } from './controllers/reviews.controller.js';
import { SessionsController } from './controllers/sessions.controller.js';
import { TeamSettingsController } from './controllers/team-settings.controller.js';
import { ThreadActionsController } from './controllers/thread-actions.controller.js';
import { ThreadsController } from './controllers/threads.controller.js';
import { dashboardProviders, type DashboardOptions } from './dashboard.options.js';
import type { DashboardConfig } from './dashboard.config.js';
import { ReplayEventsHandler } from './handlers/replay-events.handler.js';
import { RunEventsHandler } from './handlers/run-events.handler.js';
import { BudgetsService } from './services/budgets.service.js';
import { DeadLettersService } from './services/dead-letters.service.js';
import { EnabledRepositoriesService } from './services/enabled-repositories.service.js';
import { EvalSchedulesService } from './services/evals-schedules.service.js';
import { EvalsService } from './services/evals.service.js';
import { InstructionsService } from './services/instructions.service.js';
import { OpsService } from './services/ops.service.js';
import { ProfilesService } from './services/profiles.service.js';
import { QueuePositionsService } from './services/queue-positions.service.js';
import { ReplaysService } from './services/replays.service.js';
import { PersonalTokensService } from './services/personal-tokens.service.js';
import { ReviewLedgerService } from './services/review-ledger.service.js';
import { ReviewStylesService } from './services/review-styles.service.js';
import { SessionsService } from './services/sessions.service.js';
import { TeamSettingsService } from './services/team-settings.service.js';
import { IdentitiesService } from './services/identities.service.js';
import { RunEventIndexService } from './services/run-event-index.service.js';
import { RunEventNotifier } from './services/run-event-notifier.service.js';
import { ThreadActionsService } from './services/thread-actions.service.js';
import { ThreadQueryService } from './services/thread-query.service.js';
import { ThreadStreamService } from './services/thread-stream.service.js';
import { threadPeopleOf, VisibleThreadsService } from './services/visible-threads.service.js';
import { WebController } from './web-host/web.controller.js';

/**
 * Dashboard: the run event index, the API (sign-in with GitHub, threads and their live events,
 * settings, actions) and the web app served at `/`. See docs/dashboard.md.
 */
@Module({})
export class DashboardModule implements NestModule {
  static register(config: DashboardConfig, options: DashboardOptions = {}): DynamicModule {
    return {
      module: DashboardModule,
      controllers: [
        AuthController,
        ThreadsController,
        ThreadActionsController,
        ReplaysController,
        ProfilesController,
        InstructionsController,
        RepositoriesController,
        TeamSettingsController,
        IdentitiesController,
        BudgetsController,
        ReviewStylesController,
        ReviewsController,
        OpsController,
        PersonalTokensController,
        SessionsController,
        DeadLettersController,
        EvalsController,
        EvalSchedulesController,
        DocsController,
        WebController,
        RunEventsHandler,
        ReplayEventsHandler,
      ],
      providers: [
        ...dashboardProviders(config, options),
        CallerResolver,
        SignInService,
        ReadGuard,
        ActionGuard,
        AdminGuard,
        ApiHeadersMiddleware,
        CorsMiddleware,
        RunEventNotifier,
        RunEventIndexService,
        ThreadQueryService,
        ThreadStreamService,
        ThreadActionsService,
        {
          provide: ThreadAccessPolicy,
          inject: [REPOSITORY_PERMISSIONS, ThreadPlanRepository, IdentityRepository],
          useFactory: (
            permissions: RepositoryPermissionLookup | null,
            plans: ThreadPlanRepository,
            identities: IdentityRepository,
          ) => new ThreadAccessPolicy(permissions, threadPeopleOf(plans, identities)),
        },
        VisibleThreadsService,
        ReplaysService,
        QueuePositionsService,
        ProfilesService,
        InstructionsService,
        EnabledRepositoriesService,
        TeamSettingsService,
        IdentitiesService,
        BudgetsService,
        ReviewStylesService,
        ReviewLedgerService,
        OpsService,
        PersonalTokensService,
        SessionsService,
        DeadLettersService,
        EvalsService,
        EvalSchedulesService,
        repositoryProvider(ThreadRepository),
        repositoryProvider(RunRepository),
        repositoryProvider(RunEventRepository),
        repositoryProvider(CiWatchRepository),
        repositoryProvider(ThreadPlanRepository),
        repositoryProvider(UserProfileRepository),
        repositoryProvider(UserInstructionsRepository),
        repositoryProvider(IdentityRepository),
        repositoryProvider(EnabledRepositoryRepository),
        repositoryProvider(TeamDefaultsRepository),
        repositoryProvider(RepositoryInstructionsRepository),
        repositoryProvider(FindingRepository),
        repositoryProvider(PersonalTokenRepository),
        repositoryProvider(SignInPinRepository),
        repositoryProvider(DashboardSessionRepository),
        repositoryProvider(ReviewedPullRequestRepository),
        repositoryProvider(OpsRepository),
        repositoryProvider(RunQueueRepository),
        repositoryProvider(EvalRunRepository),
        repositoryProvider(EvalProposalRepository),
        repositoryProvider(ReviewStyleRepository),
        repositoryProvider(EvalReviewCaseRepository),
        repositoryProvider(EvalScheduleRepository),
        repositoryProvider(BudgetLimitRepository),
        repositoryProvider(BudgetPauseRepository),
      ],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(ApiHeadersMiddleware, CorsMiddleware)
      .forRoutes(
        { path: 'api/*path', method: RequestMethod.ALL },
        { path: 'auth/*path', method: RequestMethod.ALL },
      );
  }
}
