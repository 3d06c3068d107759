import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { dispatchConfigSchema } from './dispatch.config.js';
import { DispatchModule } from './dispatch.module.js';

await runService({
  name: 'dispatch',
  module: (config) => DispatchModule.register(config),
  schema: dispatchConfigSchema,
  env: process.env,
});
