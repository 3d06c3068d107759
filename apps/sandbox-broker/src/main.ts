import 'reflect-metadata';
import { installLogger } from '@caravel/logging';
import { runService } from '@caravel/platform';
import { sandboxBrokerConfigSchema } from './sandbox-broker.config.js';
import { SandboxBrokerModule } from './sandbox-broker.module.js';

installLogger({ service: 'sandbox-broker', format: 'json', env: process.env });
await runService({
  name: 'sandbox-broker',
  module: (config) => SandboxBrokerModule.register(config),
  schema: sandboxBrokerConfigSchema,
  env: process.env,
});
