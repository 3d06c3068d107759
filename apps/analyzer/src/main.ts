import 'reflect-metadata';
import { installLogger } from '@caravel/logging';
import { runService } from '@caravel/platform';
import { analyzerConfigSchema } from './analyzer.config.js';
import { AnalyzerModule } from './analyzer.module.js';

installLogger({ service: 'analyzer', format: 'json', env: process.env });
await runService({
  name: 'analyzer',
  module: (config) => AnalyzerModule.register(config),
  schema: analyzerConfigSchema,
  env: process.env,
});
