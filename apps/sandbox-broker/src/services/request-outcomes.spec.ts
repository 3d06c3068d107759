import { describe, expect, it } from '@jest/globals';
import { RequestOutcomes } from './request-outcomes.js';

describe('RequestOutcomes', () => {
  it('does the work of a request id once, answering a retry with the first outcome', async () => {
    const outcomes = new RequestOutcomes();
    let runs = 0;
    const edit = () => Promise.resolve(++runs);
    expect(await outcomes.once('a', edit)).toBe(1);
    expect(await outcomes.once('a', edit)).toBe(1);
    expect(await outcomes.once('b', edit)).toBe(2);
    expect(runs).toBe(2);
  });

  it('lets a retry wait for the work still running, and keeps a failure as the outcome', async () => {
    const outcomes = new RequestOutcomes();
    let finish: (value: string) => void = () => undefined;
    const slow = new Promise<string>((resolve) => (finish = resolve));
    const first = outcomes.once('slow', () => slow);
    const retry = outcomes.once('slow', () => Promise.resolve('second run'));
    finish('done');
    expect(await Promise.all([first, retry])).toEqual(['done', 'done']);
    const failing = () => Promise.reject(new Error('old text absent'));
    await expect(outcomes.once('f', failing)).rejects.toThrow('old text absent');
    await expect(outcomes.once('f', () => Promise.resolve('ok'))).rejects.toThrow(
      'old text absent',
    );
  });

  it('runs every call without an id, and forgets outcomes 15 minutes after they settled', async () => {
    let now = 0;
    const outcomes = new RequestOutcomes(() => now);
    let runs = 0;
    const work = () => Promise.resolve(++runs);
    await outcomes.once(undefined, work);
    await outcomes.once(undefined, work);
    expect(runs).toBe(2);
    await outcomes.once('x', work);
    now = 15 * 60_000 + 1;
    expect(await outcomes.once('x', work)).toBe(4);
    expect(outcomes.size).toBe(1);
  });
});
