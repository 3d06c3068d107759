import { Gauge } from 'prom-client';
import { metricsRegistry } from './metrics-registry.js';

const registers = [metricsRegistry];
const startedAt = Date.now() / 1000 - process.uptime();

// Read when scraped, never sampled in between: prom-client's default process metrics keep an
// event-loop delay monitor ticking, and an idle Caravel must cost nothing (docs/performance.md).

new Gauge({
  name: 'process_cpu_seconds_total',
  help: 'User and system CPU time this process has used, in seconds.',
  registers,
  collect() {
    const { user, system } = process.cpuUsage();
    this.set((user + system) / 1e6);
  },
});

new Gauge({
  name: 'process_resident_memory_bytes',
  help: 'Resident memory of this process, in bytes.',
  registers,
  collect() {
    this.set(process.memoryUsage.rss());
  },
});

new Gauge({
  name: 'nodejs_heap_used_bytes',
  help: "V8's used heap, in bytes.",
  registers,
  collect() {
    this.set(process.memoryUsage().heapUsed);
  },
});

new Gauge({
  name: 'process_start_time_seconds',
  help: 'When this process started, in seconds since the Unix epoch.',
  registers,
  collect() {
    this.set(Math.floor(startedAt));
  },
});
