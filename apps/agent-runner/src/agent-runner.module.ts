import { Module } from '@nestjs/common';
import { StartRunHandler } from './handlers/start-run.handler.js';
import { RunExecutorService } from './services/run-executor.service.js';

/** Builds and runs the coding agent per run. */
@Module({
  controllers: [StartRunHandler],
  providers: [RunExecutorService],
})
export class AgentRunnerModule {}
