// What the server's garbage collector did during a load: the bytes its JavaScript allocated and
// its pauses (scavenges of the young generation, mark-compacts of the whole heap), from V8's
// GCProfiler inside the server's process. A pause holds every delivery that arrives during it,
// so at a steady rate the scavenges (how often: bytes a delivery over the young generation's
// size) are what the worst answers of a window are made of.
import { getHeapStatistics, GCProfiler } from 'node:v8';

/**
 * In the server's process: SIGUSR2 starts a count, the next one prints
 * `gc {"allocated":…,"ms":…,"scavenges":[µs…],"markCompacts":[µs…]}` and stops it.
 */
export function reportGcOnSignal() {
  let counting = null;
  process.on('SIGUSR2', () => {
    if (!counting) {
      const profiler = new GCProfiler();
      profiler.start();
      counting = { profiler, used: getHeapStatistics().used_heap_size, since: performance.now() };
      return;
    }
    const { profiler, used, since } = counting;
    counting = null;
    const { statistics } = profiler.stop();
    // Allocated = what each collection found in use, less what the previous one left.
    let allocated = 0;
    let left = used;
    for (const gc of statistics) {
      allocated += gc.beforeGC.heapStatistics.usedHeapSize - left;
      left = gc.afterGC.heapStatistics.usedHeapSize;
    }
    allocated += getHeapStatistics().used_heap_size - left;
    const costs = (type) => statistics.filter((gc) => gc.gcType === type).map((gc) => gc.cost);
    const report = {
      allocated,
      ms: performance.now() - since,
      scavenges: costs('Scavenge'),
      markCompacts: costs('MarkSweepCompact'),
    };
    process.stdout.write(`gc ${JSON.stringify(report)}\n`);
  });
}

/** One line: bytes allocated a delivery, and the pauses of each kind a 10 s window. */
export function gcLine(gc, deliveries) {
  const perWindow = (pauses) => ((pauses.length * 10_000) / gc.ms).toFixed(1);
  const pauses = (label, costs) => {
    if (costs.length === 0) return `no ${label}`;
    const ms = costs.map((us) => us / 1000);
    const mean = ms.reduce((sum, value) => sum + value, 0) / ms.length;
    return `${perWindow(costs)} ${label} a 10 s (mean ${mean.toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms)`;
  };
  const kb = gc.allocated / Math.max(1, deliveries) / 1000;
  return (
    `${''.padEnd(37)} GC: ${kb.toFixed(1)} KB allocated a delivery; ` +
    `${pauses('scavenges', gc.scavenges)}; ${pauses('mark-compacts', gc.markCompacts)}\n`
  );
}
