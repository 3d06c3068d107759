import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { sandboxBrokerConfigSchema } from './sandbox-broker.config.js';
import { SandboxBrokerModule } from './sandbox-broker.module.js';

await runService({
  name: 'sandbox-broker',
  module: (config) => SandboxBrokerModule.register(config),
  schema: sandboxBrokerConfigSchema,
  env: process.env,
});
