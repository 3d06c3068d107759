/** A sample's size and quantiles (nearest rank), for cost, calls and time per attempt. */
export interface Distribution {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  max: number;
}

/** Nearest-rank quantiles of `values`; all zero for an empty sample. */
export function distribution(values: readonly number[]): Distribution {
  if (values.length === 0) return { count: 0, mean: 0, p50: 0, p90: 0, max: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? 0;
  const mean = sorted.reduce((sum, v) => sum + v, 0) / sorted.length;
  return { count: sorted.length, mean, p50: rank(0.5), p90: rank(0.9), max: rank(1) };
}
