import { runBounded } from './bounded-pool.js';

/** A worker whose items finish when the test says so, recording what ran at once. */
function gatedWorker() {
  const release = new Map<number, () => void>();
  const running = new Set<number>();
  const slots: [number, number][] = [];
  let most = 0;
  const started: number[] = [];
  const worker = (item: number, slot: number) =>
    new Promise<void>((resolve) => {
      started.push(item);
      slots.push([item, slot]);
      running.add(item);
      most = Math.max(most, running.size);
      release.set(item, () => {
        running.delete(item);
        resolve();
      });
    });
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { worker, release, started, slots, settle, most: () => most };
}

describe('runBounded', () => {
  it('runs the items in order, never more than the limit at once, each slot one at a time', async () => {
    const gate = gatedWorker();
    const done = runBounded([1, 2, 3, 4, 5], 2, gate.worker);
    await gate.settle();
    expect(gate.started).toEqual([1, 2]);
    gate.release.get(2)?.();
    await gate.settle();
    expect(gate.started).toEqual([1, 2, 3]);
    for (const item of [1, 3, 4, 5]) {
      gate.release.get(item)?.();
      await gate.settle();
    }
    await done;
    expect(gate.most()).toBe(2);
    // Item 3 took the slot item 2 left.
    expect(gate.slots).toContainEqual([3, 1]);
  });

  it('starts nothing more after an abort and waits for the running items', async () => {
    const gate = gatedWorker();
    const stop = new AbortController();
    const done = runBounded([1, 2, 3], 1, gate.worker, { signal: stop.signal });
    await gate.settle();
    stop.abort(new Error('SIGINT'));
    gate.release.get(1)?.();
    await expect(done).rejects.toThrow('SIGINT');
    expect(gate.started).toEqual([1]);
  });

  it('stops starting items after a failure and throws it once the running ones end', async () => {
    const seen: number[] = [];
    await expect(
      runBounded([1, 2, 3, 4], 2, async (item) => {
        seen.push(item);
        await new Promise((resolve) => setImmediate(resolve));
        if (item === 1) throw new Error('broken item 1');
      }),
    ).rejects.toThrow('broken item 1');
    expect(seen).toEqual([1, 2]);
  });

  it('refuses a concurrency below 1', async () => {
    await expect(runBounded([1], 0, async () => undefined)).rejects.toThrow(/from 1/);
  });
});
