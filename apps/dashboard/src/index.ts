export { DashboardModule } from './dashboard.module.js';
export {
  checkDashboardSignIn,
  dashboardConfigOf,
  dashboardConfigSchema,
  dashboardEnvSchema,
  type DashboardConfig,
} from './dashboard.config.js';
/** The dashboard's signal that it indexed one of a thread's run events (what wakes its streams). */
export { RunEventNotifier } from './services/run-event-notifier.service.js';
