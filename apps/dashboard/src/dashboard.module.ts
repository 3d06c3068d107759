import { RunEventRepository, RunRepository, ThreadRepository } from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Module } from '@nestjs/common';
import { ThreadsController } from './controllers/threads.controller.js';
import { RunEventsHandler } from './handlers/run-events.handler.js';
import { RunEventIndexService } from './services/run-event-index.service.js';
import { ThreadQueryService } from './services/thread-query.service.js';

/** Dashboard: the run event index and the read API (the web UI lands with its issue). */
@Module({
  controllers: [ThreadsController, RunEventsHandler],
  providers: [
    RunEventIndexService,
    ThreadQueryService,
    repositoryProvider(ThreadRepository),
    repositoryProvider(RunRepository),
    repositoryProvider(RunEventRepository),
  ],
})
export class DashboardModule {}
