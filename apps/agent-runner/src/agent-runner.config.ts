import { distributedServiceSchema } from '@caravel/config';

export const agentRunnerConfigSchema = distributedServiceSchema(3003);
