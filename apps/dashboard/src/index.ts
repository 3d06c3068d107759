export { DashboardModule } from './dashboard.module.js';
export { dashboardConfigSchema } from './dashboard.config.js';
