export { DispatchModule } from './dispatch.module.js';
export { dispatchConfigSchema } from './dispatch.config.js';
