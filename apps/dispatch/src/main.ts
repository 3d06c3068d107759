import 'reflect-metadata';
import { installLogger } from '@caravel/logging';
import { runService } from '@caravel/platform';
import { dispatchConfigSchema } from './dispatch.config.js';
import { DispatchModule } from './dispatch.module.js';

installLogger({ service: 'dispatch', format: 'json', env: process.env });
await runService({
  name: 'dispatch',
  module: (config) => DispatchModule.register(config),
  schema: dispatchConfigSchema,
  env: process.env,
});
