import { Gauge } from 'prom-client';
import { metricsRegistry } from './metrics-registry.js';

/** Reads one gauge's current values (by label value) when Prometheus scrapes. */
export type GaugeSource<L extends string> = () => Promise<
  readonly { labels: Record<L, string>; value: number }[]
>;

/** A gauge read from its sources at scrape time: what the database or the bus holds now. */
export interface ScrapedGauge<L extends string> {
  /** Adds a source (a service as it starts); the function returned removes it (as it stops). */
  addSource(source: GaugeSource<L>): () => void;
}

/**
 * A gauge whose values are read when scraped, from the sources the running services add, and
 * added up per label set (one process, one figure). A source that fails is left out of that
 * scrape rather than failing `/metrics`, and a series nobody reports is not shown stale.
 */
export function scrapedGauge<L extends string>(
  name: string,
  help: string,
  labelNames: readonly L[],
): ScrapedGauge<L> {
  const sources = new Set<GaugeSource<L>>();
  new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [metricsRegistry],
    async collect() {
      this.reset();
      const readings = await Promise.all(
        // A source that throws before it returns a promise is left out the same way.
        [...sources].map((source) =>
          Promise.resolve()
            .then(source)
            .catch(() => [] as const),
        ),
      );
      for (const { labels, value } of readings.flat()) this.inc(labels, value);
    },
  });
  return {
    addSource(source) {
      sources.add(source);
      return () => sources.delete(source);
    },
  };
}
