/** A proportion with its 95% Wilson score interval. */
export interface Proportion {
  successes: number;
  trials: number;
  rate: number;
  low: number;
  high: number;
}

const Z_95 = 1.959963984540054;

/**
 * The share of successes with its 95% Wilson score interval: unlike the normal approximation it
 * stays inside [0, 1] and is honest at the small sizes and extreme rates eval suites have (a
 * 20-task suite resolving 19).
 */
export function proportion(successes: number, trials: number): Proportion {
  if (trials === 0) return { successes, trials, rate: 0, low: 0, high: 1 };
  const rate = successes / trials;
  const z2 = Z_95 * Z_95;
  const centre = (rate + z2 / (2 * trials)) / (1 + z2 / trials);
  const half =
    (Z_95 / (1 + z2 / trials)) *
    Math.sqrt((rate * (1 - rate)) / trials + z2 / (4 * trials * trials));
  return {
    successes,
    trials,
    rate,
    low: Math.max(0, centre - half),
    high: Math.min(1, centre + half),
  };
}
