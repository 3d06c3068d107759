import 'reflect-metadata';
import { installLogger } from '@caravel/logging';
import { runService } from '@caravel/platform';
import { dashboardConfigSchema } from './dashboard.config.js';
import { DashboardModule } from './dashboard.module.js';

installLogger({ service: 'dashboard', format: 'json', env: process.env });
await runService({
  name: 'dashboard',
  module: (config) => DashboardModule.register(config),
  schema: dashboardConfigSchema,
  env: process.env,
});
