import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { ingressConfigSchema } from './ingress.config.js';
import { IngressModule } from './ingress.module.js';

await runService({
  name: 'ingress',
  module: (config) => IngressModule.register(config),
  schema: ingressConfigSchema,
  env: process.env,
});
