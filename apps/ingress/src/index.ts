export { IngressModule } from './ingress.module.js';
export {
  ingressConfigFrom,
  ingressConfigOf,
  ingressConfigSchema,
  ingressEnvSchema,
  type IngressConfig,
} from './ingress.config.js';
