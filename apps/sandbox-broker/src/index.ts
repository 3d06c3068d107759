export { SandboxBrokerModule } from './sandbox-broker.module.js';
export {
  sandboxBrokerConfigOf,
  sandboxBrokerConfigSchema,
  sandboxBrokerEnvSchema,
  type SandboxBrokerConfig,
} from './sandbox-broker.config.js';
