import 'reflect-metadata';
import { installLogger } from '@caravel/logging';
import { runService } from '@caravel/platform';
import { agentRunnerConfigSchema } from './agent-runner.config.js';
import { AgentRunnerModule } from './agent-runner.module.js';

installLogger({ service: 'agent-runner', format: 'json', env: process.env });
await runService({
  name: 'agent-runner',
  module: (config) => AgentRunnerModule.register(config),
  schema: agentRunnerConfigSchema,
  env: process.env,
});
