import { distributedServiceSchema } from '@caravel/config';
import { agentSettingsSchema } from './agent-runner.settings.js';

export const agentRunnerConfigSchema = distributedServiceSchema(3003).extend(
  agentSettingsSchema.shape,
);
