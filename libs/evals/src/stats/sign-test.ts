/** The outcome of an exact two-sided sign test on paired differences. */
export interface SignTest {
  /** Pairs where the candidate did better / worse; ties are left out, as the test does. */
  better: number;
  worse: number;
  /** Two-sided p-value: the chance of a split this uneven if neither side were better. */
  pValue: number;
  /**
   * One-sided p-value for "the candidate is worse": the chance of at least `worse` losses among
   * the untied pairs if neither side were better. A gate asks only this question.
   */
  pWorse: number;
}

/** log(n choose k), summed in logs so large suites do not overflow. */
function logChoose(n: number, k: number): number {
  let sum = 0;
  for (let i = 1; i <= k; i += 1) sum += Math.log(n - k + i) - Math.log(i);
  return sum;
}

/**
 * The exact sign test on paired differences (per task: the candidate's resolve rate minus the
 * baseline's). With one attempt per task it is McNemar's exact test on the discordant pairs. It
 * asks only which side did better on each task, so it needs no assumption about how rates are
 * distributed, and it is exact at the sizes suites have.
 */
export function signTest(differences: readonly number[]): SignTest {
  const better = differences.filter((d) => d > 0).length;
  const worse = differences.filter((d) => d < 0).length;
  const n = better + worse;
  if (n === 0) return { better, worse, pValue: 1, pWorse: 1 };
  const atMost = (k: number) => {
    let p = 0;
    for (let i = 0; i <= k; i += 1) p += Math.exp(logChoose(n, i) - n * Math.LN2);
    return Math.min(1, p);
  };
  return {
    better,
    worse,
    pValue: Math.min(1, 2 * atMost(Math.min(better, worse))),
    // At least `worse` losses = at most `better` wins among the n untied pairs.
    pWorse: atMost(better),
  };
}
