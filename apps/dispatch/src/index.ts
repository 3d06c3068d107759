export { DispatchModule } from './dispatch.module.js';
export { dispatchConfigSchema } from './dispatch.config.js';
export {
  dispatchServiceSettingsSchema,
  dispatchSettingsSchema,
  replySettingsSchema,
  type DispatchSettings,
} from './dispatch.settings.js';
export { DispatchSweepService, type SweepReport } from './services/dispatch-sweep.service.js';
