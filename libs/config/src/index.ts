export { loadConfig, describeConfigIssues, type EnvSource } from './load-config.js';
export {
  documented,
  metaOf,
  port,
  flag,
  logLevel,
  natsUrl,
  databaseUrl,
  positiveInt,
  nonNegativeInt,
  nonNegative,
  splitList,
  commaList,
  type EnvKeyMeta,
  type ListEntryRule,
} from './schema-helpers.js';
export {
  distributedServiceSchema,
  serviceConfigOf,
  type DistributedServiceEnv,
  type ServiceConfig,
} from './service-config.js';
export { envSchemaOf, type ConfigSchema } from './config-schema.js';
export { renderEnvExample, type EnvSection } from './env-example.js';
export { CLOCK, systemClock, type Clock } from './clock.js';
