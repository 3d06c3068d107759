export { DashboardModule } from './dashboard.module.js';
export { dashboardConfigSchema } from './dashboard.config.js';
export { dashboardSettingsSchema, type DashboardSettings } from './dashboard.settings.js';
