import { Registry } from 'prom-client';

/**
 * The process's one metrics registry: every Caravel metric registers here, and `/metrics` on each
 * service renders it. When several services share a process (`caravel start`) they share it too,
 * and their series add up: one process, one scrape.
 */
export const metricsRegistry = new Registry();

/** The `Content-Type` of {@link renderMetrics}'s text (Prometheus exposition format 0.0.4). */
export const METRICS_CONTENT_TYPE = metricsRegistry.contentType;

/** Every metric in the exposition format. Collected on demand: nothing runs between scrapes. */
export function renderMetrics(): Promise<string> {
  return metricsRegistry.metrics();
}
