import { distributedServiceSchema } from '@caravel/config';
import { sandboxBrokerSettingsSchema } from './sandbox-broker.settings.js';

export const sandboxBrokerConfigSchema = distributedServiceSchema(3006).extend(
  sandboxBrokerSettingsSchema.shape,
);
