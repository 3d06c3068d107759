// Shared measuring helpers: a bounded publish window and latency percentiles.

/** Publishes `count` messages with at most `window` publishes awaiting their ack. */
export async function publishWindowed(count, window, publishOne) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(window, count) }, async () => {
    while (next < count) {
      const n = next;
      next += 1;
      await publishOne(n);
    }
  });
  await Promise.all(lanes);
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)];
}

/** Collects publish->handle latencies and resolves once `expected` messages were handled. */
export class Recorder {
  constructor(expected) {
    this.expected = expected;
    this.sentAt = new Map();
    this.latencies = [];
    this.done = new Promise((resolve) => {
      this.finish = resolve;
    });
  }

  sent(key) {
    this.sentAt.set(key, performance.now());
  }

  handled(key) {
    const start = this.sentAt.get(key);
    if (start === undefined) return;
    this.sentAt.delete(key);
    this.latencies.push(performance.now() - start);
    if (this.latencies.length === this.expected) this.finish(performance.now());
  }

  summary(startedAt, finishedAt) {
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return {
      throughput: (this.latencies.length / (finishedAt - startedAt)) * 1000,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
    };
  }
}

/** Rejects when `promise` has not settled in `ms` (a bench must not hang forever). */
export function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish in ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
