export { SandboxBrokerModule } from './sandbox-broker.module.js';
export { sandboxBrokerConfigSchema } from './sandbox-broker.config.js';
export {
  sandboxBrokerSettingsSchema,
  type SandboxBrokerSettings,
} from './sandbox-broker.settings.js';
