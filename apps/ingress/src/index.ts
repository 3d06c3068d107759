export { IngressModule } from './ingress.module.js';
export { ingressConfigSchema } from './ingress.config.js';
