import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { ingressConfigSchema } from './ingress.config.js';
import { IngressModule } from './ingress.module.js';

await runService({
  name: 'ingress',
  module: IngressModule,
  schema: ingressConfigSchema,
  env: process.env,
});
