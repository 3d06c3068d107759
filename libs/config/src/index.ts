export { loadConfig, describeConfigIssues, type EnvSource } from './load-config.js';
export {
  documented,
  metaOf,
  port,
  flag,
  logLevel,
  natsUrl,
  databaseUrl,
  type EnvKeyMeta,
} from './schema-helpers.js';
export { distributedServiceSchema, type DistributedServiceConfig } from './service-config.js';
export { renderEnvExample, type EnvSection } from './env-example.js';
