import { RunRepository, ThreadMessageRepository, ThreadRepository } from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Module } from '@nestjs/common';
import { RunFinishedHandler } from './handlers/run-finished.handler.js';
import { RunStartedHandler } from './handlers/run-started.handler.js';
import { TriggerReceivedHandler } from './handlers/trigger-received.handler.js';
import { DispatchService } from './services/dispatch.service.js';

/** Thread state machine: triggers in, run commands out, run endings back. */
@Module({
  controllers: [TriggerReceivedHandler, RunStartedHandler, RunFinishedHandler],
  providers: [
    DispatchService,
    repositoryProvider(ThreadRepository),
    repositoryProvider(RunRepository),
    repositoryProvider(ThreadMessageRepository),
  ],
})
export class DispatchModule {}
