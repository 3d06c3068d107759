export { DispatchModule } from './dispatch.module.js';
export {
  dispatchConfigOf,
  dispatchConfigSchema,
  dispatchEnvSchema,
  type DispatchConfig,
} from './dispatch.config.js';
export { DispatchSweepService, type SweepReport } from './services/dispatch-sweep.service.js';
/** The thread state machine; exported for scenarios that hand it a trigger directly. */
export { DispatchService } from './services/dispatch.service.js';
/** CI babysitting's sweep; exported for scenarios that run it on their own clock. */
export { CiWatchSweepService, type CiSweepReport } from './ci-watch/ci-watch-sweep.service.js';
