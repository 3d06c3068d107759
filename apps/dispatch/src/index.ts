export { DispatchModule } from './dispatch.module.js';
export { dispatchConfigSchema } from './dispatch.config.js';
export {
  dispatchServiceSettingsSchema,
  dispatchSettingsSchema,
  replySettingsSchema,
  type DispatchSettings,
} from './dispatch.settings.js';
export { DispatchSweepService, type SweepReport } from './services/dispatch-sweep.service.js';
/** The thread state machine; exported for scenarios that hand it a trigger directly. */
export { DispatchService } from './services/dispatch.service.js';
