import 'reflect-metadata';
import { installLogger } from '@caravel/logging';
import { runService } from '@caravel/platform';
import { ingressConfigSchema } from './ingress.config.js';
import { IngressModule } from './ingress.module.js';

installLogger({ service: 'ingress', format: 'json', env: process.env });
await runService({
  name: 'ingress',
  module: (config) => IngressModule.register(config),
  schema: ingressConfigSchema,
  env: process.env,
});
