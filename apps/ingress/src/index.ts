export { IngressModule } from './ingress.module.js';
export {
  ingressConfigFrom,
  ingressConfigOf,
  ingressConfigSchema,
  ingressEnvSchema,
  type IngressConfig,
} from './ingress.config.js';
export {
  CONNECT_SECRET_KEYS,
  ConnectSecretCipher,
  connectSecretContext,
} from './services/connect-secrets.js';
