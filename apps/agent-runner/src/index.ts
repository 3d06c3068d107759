export { AgentRunnerModule } from './agent-runner.module.js';
export { agentRunnerConfigSchema } from './agent-runner.config.js';
