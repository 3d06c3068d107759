import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { agentRunnerConfigSchema } from './agent-runner.config.js';
import { AgentRunnerModule } from './agent-runner.module.js';

await runService({
  name: 'agent-runner',
  module: (config) => AgentRunnerModule.register(config),
  schema: agentRunnerConfigSchema,
  env: process.env,
});
