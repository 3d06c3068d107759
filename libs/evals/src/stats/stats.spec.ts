import { distribution } from './distribution.js';
import { proportion } from './proportion.js';
import { signTest } from './sign-test.js';

describe('proportion (Wilson 95% interval)', () => {
  it('matches the published interval for 19 of 20', () => {
    const p = proportion(19, 20);
    expect(p.rate).toBe(0.95);
    expect(p.low).toBeCloseTo(0.7639, 3);
    expect(p.high).toBeCloseTo(0.9911, 3);
  });

  it('stays inside [0, 1] at the extremes and is all of it with no trials', () => {
    expect(proportion(0, 10).low).toBe(0);
    expect(proportion(10, 10).high).toBeCloseTo(1, 12);
    expect(proportion(10, 10).high).toBeLessThanOrEqual(1);
    expect(proportion(0, 0)).toMatchObject({ low: 0, high: 1 });
  });
});

describe('signTest (exact)', () => {
  it("is McNemar's exact test on discordant pairs: 1 against 9", () => {
    const test = signTest([1, ...Array<number>(9).fill(-1), 0, 0]);
    expect(test).toMatchObject({ better: 1, worse: 9 });
    expect(test.pValue).toBeCloseTo((2 * 11) / 1024, 10);
    expect(test.pWorse).toBeCloseTo(11 / 1024, 10);
  });

  it('cannot call 5 losses of 10 tasks significant two-sided, but can one-sided', () => {
    const test = signTest([-1, -1, -1, -1, -1, 0, 0, 0, 0, 0]);
    expect(test.pValue).toBeCloseTo(2 / 32, 10);
    expect(test.pWorse).toBeCloseTo(1 / 32, 10);
  });

  it('says nothing with no untied pair, and is symmetric', () => {
    expect(signTest([0, 0])).toMatchObject({ pValue: 1, pWorse: 1 });
    expect(signTest([1, 1, -1]).pValue).toBe(signTest([-1, -1, 1]).pValue);
    expect(signTest([1, 1, 1]).pWorse).toBe(1);
  });

  it('stays finite on large suites', () => {
    const test = signTest([...Array<number>(600).fill(-0.5), ...Array<number>(400).fill(0.5)]);
    expect(test.pValue).toBeGreaterThan(0);
    expect(test.pValue).toBeLessThan(1e-9);
  });
});

describe('distribution', () => {
  it('gives nearest-rank quantiles', () => {
    expect(distribution([5, 1, 4, 2, 3, 6, 7, 8, 9, 10])).toEqual({
      count: 10,
      mean: 5.5,
      p50: 5,
      p90: 9,
      max: 10,
    });
    expect(distribution([])).toMatchObject({ count: 0, p90: 0 });
  });
});
