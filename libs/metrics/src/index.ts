import './process.metrics.js';

export { METRICS_CONTENT_TYPE, metricsRegistry, renderMetrics } from './metrics-registry.js';
export {
  busConsumerBacklog,
  busDeliveries,
  busHandlerDuration,
  busPublished,
  databasePoolConnections,
  dispatchQueueRuns,
  httpRequestDuration,
  httpRequests,
  modelCalls,
  modelCost,
  modelTokens,
  runsFinished,
  sandboxAcquires,
  sandboxExecDuration,
  triggersRefused,
  webhooks,
} from './caravel.metrics.js';
export { scrapedGauge, type GaugeSource, type ScrapedGauge } from './scraped-gauge.js';
export { startTimer } from './timer.js';
export {
  startTracing,
  tracingSettings,
  type Tracing,
  type TracingEnv,
  type TracingSettings,
} from './tracing/index.js';
