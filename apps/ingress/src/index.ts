export { IngressModule } from './ingress.module.js';
export { ingressConfigSchema } from './ingress.config.js';
export { ingressSettingsSchema, type IngressSettings } from './ingress.settings.js';
export type { Clock } from './ingress.clock.js';
