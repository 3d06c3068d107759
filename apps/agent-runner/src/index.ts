export { AgentRunnerModule } from './agent-runner.module.js';
export {
  agentRunnerConfigFrom,
  agentRunnerConfigOf,
  agentRunnerConfigSchema,
  agentRunnerEnvSchema,
  type AgentRunnerConfig,
} from './agent-runner.config.js';
export { attemptIds } from './services/attempt-runner.js';
