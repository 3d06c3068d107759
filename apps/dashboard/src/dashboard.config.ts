import { distributedServiceSchema } from '@caravel/config';
import { dashboardSettingsSchema } from './dashboard.settings.js';

export const dashboardConfigSchema = distributedServiceSchema(3007).extend(
  dashboardSettingsSchema.shape,
);
