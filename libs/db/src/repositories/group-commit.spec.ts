import { describe, expect, it, jest } from '@jest/globals';
import { GroupCommit } from './group-commit.js';

/** A statement runner that records each batch it ran and refuses negative items. */
function runner() {
  const batches: number[][] = [];
  const run = (items: readonly number[]): Promise<number[]> => {
    batches.push([...items]);
    return items.some((item) => item < 0)
      ? Promise.reject(new Error(`refused ${items.join(',')}`))
      : Promise.resolve(items.map((item) => item * 10));
  };
  return { batches, run };
}

describe('GroupCommit', () => {
  it('runs the first call at once and the calls made meanwhile together, in order', async () => {
    const { batches, run } = runner();
    const group = new GroupCommit(run);
    const results = await Promise.all([1, 2, 3, 4].map((item) => group.submit(item)));
    expect(results).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1], [2, 3, 4]]);
  });

  it('runs a call alone when nothing is in flight, without waiting for a timer', async () => {
    const { batches, run } = runner();
    const group = new GroupCommit(run);
    const result = group.submit(7);
    expect(batches).toEqual([[7]]);
    await expect(result).resolves.toBe(70);
  });

  it('caps a batch', async () => {
    const { batches, run } = runner();
    const group = new GroupCommit(run, { maxBatch: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((item) => group.submit(item)));
    expect(batches).toEqual([[1], [2, 3], [4, 5]]);
  });

  it('fails only the item its database refuses: a failed batch is run again one by one', async () => {
    const { batches, run } = runner();
    const group = new GroupCommit(run);
    const outcomes = await Promise.allSettled([1, 2, -3, 4].map((item) => group.submit(item)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 10 },
      { status: 'fulfilled', value: 20 },
      { status: 'rejected', reason: new Error('refused -3') },
      { status: 'fulfilled', value: 40 },
    ]);
    expect(batches).toEqual([[1], [2, -3, 4], [2], [-3], [4]]);
  });

  it('keeps going after a failure', async () => {
    const { run } = runner();
    const group = new GroupCommit(run);
    await expect(group.submit(-1)).rejects.toThrow('refused -1');
    await expect(group.submit(5)).resolves.toBe(50);
  });

  it('waits for the turn of the event loop to end when asked to gather, then runs all at once', async () => {
    const { batches, run } = runner();
    const group = new GroupCommit(run, { gatherForOneTurn: true });
    const first = group.submit(1);
    expect(batches).toEqual([]);
    const later = new Promise<number>((resolve) => setImmediate(() => resolve(0)));
    const rest = [2, 3].map((item) => group.submit(item));
    expect(await Promise.all([first, ...rest, later])).toEqual([10, 20, 30, 0]);
    expect(batches).toEqual([[1, 2, 3]]);
  });

  it('holds the first call for gatherForMs, so the calls of later turns go with it', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const { batches, run } = runner();
      const group = new GroupCommit(run, { gatherForMs: 50 });
      const first = group.submit(1);
      await new Promise((resolve) => setImmediate(resolve));
      const rest = [2, 3].map((item) => group.submit(item));
      expect(batches).toEqual([]);
      jest.advanceTimersByTime(50);
      expect(await Promise.all([first, ...rest])).toEqual([10, 20, 30]);
      expect(batches).toEqual([[1, 2, 3]]);
    } finally {
      jest.useRealTimers();
    }
  });
});
