import { describe, expect, it } from '@jest/globals';
import {
  httpRequests,
  METRICS_CONTENT_TYPE,
  renderMetrics,
  runsFinished,
  startTimer,
} from './index.js';

/** The value of one series in exposition text, or undefined when it is absent. */
function valueOf(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the metrics registry', () => {
  it('renders counters with their labels in the exposition format', async () => {
    httpRequests.inc({ method: 'GET', route: '/health/live', status: '200' });
    httpRequests.inc({ method: 'GET', route: '/health/live', status: '200' });
    runsFinished.inc({ outcome: 'completed', exit_status: 'submitted' });
    const text = await renderMetrics();
    expect(
      valueOf(text, 'caravel_http_requests_total{method="GET",route="/health/live",status="200"}'),
    ).toBe(2);
    expect(
      valueOf(text, 'caravel_runs_finished_total{outcome="completed",exit_status="submitted"}'),
    ).toBe(1);
    expect(text).toContain('# TYPE caravel_http_requests_total counter');
    expect(METRICS_CONTENT_TYPE).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('reads the process figures when scraped', async () => {
    const text = await renderMetrics();
    expect(valueOf(text, 'process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
    expect(valueOf(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    const started = valueOf(text, 'process_start_time_seconds') ?? 0;
    expect(started).toBeLessThanOrEqual(Date.now() / 1000);
    expect(started).toBeGreaterThan(Date.now() / 1000 - 3600);
  });

  it('follows the naming rules: counters end in _total, durations are in seconds', async () => {
    const text = await renderMetrics();
    const types = [...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => ({
      name: name ?? '',
      type,
    }));
    expect(types.length).toBeGreaterThan(10);
    for (const { name, type } of types) {
      if (type === 'counter') expect(name).toMatch(/_total$/);
      if (type === 'histogram') expect(name).toMatch(/_seconds$/);
    }
  });

  it('times in seconds', () => {
    const elapsed = startTimer();
    expect(elapsed()).toBeGreaterThanOrEqual(0);
    expect(elapsed()).toBeLessThan(60);
  });
});
