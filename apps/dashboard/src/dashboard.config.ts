import { distributedServiceSchema } from '@caravel/config';

export const dashboardConfigSchema = distributedServiceSchema(3007);
