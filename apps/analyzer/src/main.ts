import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { analyzerConfigSchema } from './analyzer.config.js';
import { AnalyzerModule } from './analyzer.module.js';

await runService({
  name: 'analyzer',
  module: (config) => AnalyzerModule.register(config),
  schema: analyzerConfigSchema,
  env: process.env,
});
