import { distributedServiceSchema } from '@caravel/config';

export const reviewerConfigSchema = distributedServiceSchema(3004);
