export { startTracing, type Tracing } from './start-tracing.js';
export { tracingSettings, type TracingEnv, type TracingSettings } from './tracing-settings.js';
