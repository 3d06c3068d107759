export { AgentRunnerModule } from './agent-runner.module.js';
export { agentRunnerConfigSchema } from './agent-runner.config.js';
export {
  agentSettingsSchema,
  modelCredentialsOf,
  type AgentSettings,
} from './agent-runner.settings.js';
export { attemptIds } from './services/attempt-runner.js';
