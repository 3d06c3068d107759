import { distributedServiceSchema } from '@caravel/config';

/** Ingress's configuration. Webhook secrets arrive with the triggers issue. */
export const ingressConfigSchema = distributedServiceSchema(3001);
