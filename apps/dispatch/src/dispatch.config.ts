import { distributedServiceSchema } from '@caravel/config';

/** Dispatch's configuration (it needs nothing beyond the common service keys yet). */
export const dispatchConfigSchema = distributedServiceSchema(3002);
