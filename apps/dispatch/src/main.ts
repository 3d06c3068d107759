import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { dispatchConfigSchema } from './dispatch.config.js';
import { DispatchModule } from './dispatch.module.js';

await runService({
  name: 'dispatch',
  module: DispatchModule,
  schema: dispatchConfigSchema,
  env: process.env,
});
