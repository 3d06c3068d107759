import { distributedServiceSchema } from '@caravel/config';
import { ingressSettingsSchema } from './ingress.settings.js';

/** Ingress's configuration: the common service keys plus the webhook secrets and handles. */
export const ingressConfigSchema = distributedServiceSchema(3001).extend(
  ingressSettingsSchema.shape,
);
