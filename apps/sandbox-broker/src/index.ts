export { SandboxBrokerModule } from './sandbox-broker.module.js';
export { sandboxBrokerConfigSchema } from './sandbox-broker.config.js';
