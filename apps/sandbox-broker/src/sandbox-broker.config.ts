import { distributedServiceSchema } from '@caravel/config';

export const sandboxBrokerConfigSchema = distributedServiceSchema(3006);
