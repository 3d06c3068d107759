import { distributedServiceSchema } from '@caravel/config';

export const analyzerConfigSchema = distributedServiceSchema(3005);
