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
/** How many thread streams one person may hold open in a dashboard process. */
export { STREAMS_PER_PERSON } from './services/thread-stream.service.js';
