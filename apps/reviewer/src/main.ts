import 'reflect-metadata';
import { installLogger } from '@caravel/logging';
import { runService } from '@caravel/platform';
import { reviewerConfigSchema } from './reviewer.config.js';
import { ReviewerModule } from './reviewer.module.js';

installLogger({ service: 'reviewer', format: 'json', env: process.env });
await runService({
  name: 'reviewer',
  module: (config) => ReviewerModule.register(config),
  schema: reviewerConfigSchema,
  env: process.env,
});
