import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { reviewerConfigSchema } from './reviewer.config.js';
import { ReviewerModule } from './reviewer.module.js';

await runService({
  name: 'reviewer',
  module: (config) => ReviewerModule.register(config),
  schema: reviewerConfigSchema,
  env: process.env,
});
