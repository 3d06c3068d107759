import { distributedServiceSchema } from '@caravel/config';
import { dispatchServiceSettingsSchema } from './dispatch.settings.js';

/** Dispatch's configuration: the common service keys, its limits and its reply channels. */
export const dispatchConfigSchema = distributedServiceSchema(3002).extend(
  dispatchServiceSettingsSchema.shape,
);
