export { BUS, DATABASE, RUNTIME } from './tokens.js';
export { composeRuntime, type PlatformRuntime } from './runtime.js';
export { AppErrorFilter } from './app-error.filter.js';
export {
  BodyBudget,
  DirectRoutes,
  readRequestBody,
  type DirectAnswer,
  type DirectHandler,
} from './direct-routes.js';
export { PlatformModule } from './platform.module.js';
export { ReadinessService, type ReadinessReport } from './readiness.service.js';
export { repositoryProvider } from './repository.provider.js';
export { PeriodicTask, type PeriodicTaskLogger } from './periodic-task.js';
export { LeasedSweep, type LeasedSweepSchedule } from './leased-sweep.js';
export {
  startServiceHost,
  logLevelsFrom,
  type ServiceHost,
  type ServiceHostOptions,
} from './service-host.js';
export { openDistributedRuntime, openEmbeddedRuntime } from './open-runtime.js';
export { runService, closeOnSignals, failStartup, type RunServiceOptions } from './run-service.js';
export { periodicLease, underLease, type WorkLease } from './under-lease.js';
