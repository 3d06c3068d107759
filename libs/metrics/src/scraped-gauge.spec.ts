import { describe, expect, it } from '@jest/globals';
import { renderMetrics } from './metrics-registry.js';
import { scrapedGauge } from './scraped-gauge.js';

describe('a gauge read when scraped', () => {
  const gauge = scrapedGauge('caravel_test_things', 'Things, for the spec.', ['state']);
  const lines = async () =>
    (await renderMetrics()).split('\n').filter((line) => line.startsWith('caravel_test_things{'));

  it('adds up its sources per label, leaves a failing one out, and forgets a removed one', async () => {
    const first = gauge.addSource(() =>
      Promise.resolve([
        { labels: { state: 'waiting' }, value: 2 },
        { labels: { state: 'active' }, value: 1 },
      ]),
    );
    const second = gauge.addSource(() =>
      Promise.resolve([{ labels: { state: 'waiting' }, value: 3 }]),
    );
    const broken = gauge.addSource(() => Promise.reject(new Error('database down')));
    const thrown = gauge.addSource(() => {
      throw new Error('no pool here');
    });
    expect(await lines()).toEqual([
      'caravel_test_things{state="waiting"} 5',
      'caravel_test_things{state="active"} 1',
    ]);

    first();
    broken();
    thrown();
    expect(await lines()).toEqual(['caravel_test_things{state="waiting"} 3']);
    second();
    expect(await lines()).toEqual([]);
  });
});
