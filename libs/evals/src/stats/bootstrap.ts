/** A statistic with its 95% percentile-bootstrap interval. */
export interface BootstrapInterval {
  value: number | null;
  low: number;
  high: number;
}

/** Resamples drawn: enough for stable 2.5% and 97.5% percentiles, cheap at suite sizes. */
const RESAMPLES = 2000;

/**
 * A small deterministic generator (a 32-bit xorshift): the same items give the same interval on
 * every machine and every call, so a history page does not flicker and a test can pin it.
 */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state / 0x1_0000_0000;
  };
}

/**
 * The 95% percentile-bootstrap interval of `statistic` over `items` (resampled with replacement,
 * `RESAMPLES` times, seeded). Used where no closed form fits, as for a micro-averaged F1 over
 * review cases; a resample whose statistic is undefined (null) is left out. With no item the
 * value is null and the interval the whole of [0, 1].
 */
export function bootstrapInterval<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number | null,
  seed = 1,
): BootstrapInterval {
  const value = items.length === 0 ? null : statistic(items);
  if (items.length === 0) return { value, low: 0, high: 1 };
  const next = generator(seed + items.length);
  const values: number[] = [];
  for (let r = 0; r < RESAMPLES; r += 1) {
    const sample = items.map(() => items[Math.floor(next() * items.length)] as T);
    const v = statistic(sample);
    if (v !== null) values.push(v);
  }
  if (values.length === 0) return { value, low: 0, high: 1 };
  values.sort((a, b) => a - b);
  const at = (q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;
  return { value, low: at(0.025), high: at(0.975) };
}
