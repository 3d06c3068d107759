import {
  RunEventRepository,
  RunRepository,
  ThreadPlanRepository,
  ThreadRepository,
  UserProfileRepository,
} from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Module, type DynamicModule } from '@nestjs/common';
import { DeadLettersController } from './controllers/dead-letters.controller.js';
import { ProfilesController } from './controllers/profiles.controller.js';
import { ThreadActionsController } from './controllers/thread-actions.controller.js';
import { ThreadsController } from './controllers/threads.controller.js';
import { DASHBOARD_SETTINGS, type DashboardSettings } from './dashboard.settings.js';
import { ActionTokenGuard } from './http/action-token.guard.js';
import { RunEventsHandler } from './handlers/run-events.handler.js';
import { DeadLettersService } from './services/dead-letters.service.js';
import { ProfilesService } from './services/profiles.service.js';
import { RunEventIndexService } from './services/run-event-index.service.js';
import { ThreadActionsService } from './services/thread-actions.service.js';
import { ThreadQueryService } from './services/thread-query.service.js';

/**
 * Dashboard: the run event index, the read API, and the actions a person takes in a thread
 * (behind `DASHBOARD_TOKEN`). The web UI lands with its issue.
 */
@Module({})
export class DashboardModule {
  static register(settings: DashboardSettings): DynamicModule {
    return {
      module: DashboardModule,
      controllers: [
        ThreadsController,
        ThreadActionsController,
        ProfilesController,
        DeadLettersController,
        RunEventsHandler,
      ],
      providers: [
        { provide: DASHBOARD_SETTINGS, useValue: settings },
        ActionTokenGuard,
        RunEventIndexService,
        ThreadQueryService,
        ThreadActionsService,
        ProfilesService,
        DeadLettersService,
        repositoryProvider(ThreadRepository),
        repositoryProvider(RunRepository),
        repositoryProvider(RunEventRepository),
        repositoryProvider(ThreadPlanRepository),
        repositoryProvider(UserProfileRepository),
      ],
    };
  }
}
