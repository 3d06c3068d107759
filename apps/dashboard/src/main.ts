import 'reflect-metadata';
import { runService } from '@caravel/platform';
import { dashboardConfigSchema } from './dashboard.config.js';
import { DashboardModule } from './dashboard.module.js';

await runService({
  name: 'dashboard',
  module: (config) => DashboardModule.register(config),
  schema: dashboardConfigSchema,
  env: process.env,
});
