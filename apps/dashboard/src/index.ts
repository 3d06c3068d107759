export { DashboardModule } from './dashboard.module.js';
export {
  checkDashboardSignIn,
  dashboardConfigOf,
  dashboardConfigSchema,
  dashboardEnvSchema,
  type DashboardConfig,
} from './dashboard.config.js';
