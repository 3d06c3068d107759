import { describe, expect, it } from '@jest/globals';
import type { ParkedEntry, ParkedThread } from './parked-threads.js';
import { ThreadParking, type ParkedStore } from './thread-parking.js';

/** An in-memory store with the KV bucket's compare-and-set on revisions. */
class MemoryStore implements ParkedStore {
  readonly records = new Map<string, ParkedEntry>();
  private revision = 0;

  get(threadId: string): Promise<ParkedEntry | null> {
    return Promise.resolve(this.records.get(threadId) ?? null);
  }

  create(threadId: string, value: ParkedThread): Promise<boolean> {
    if (this.records.has(threadId)) return Promise.resolve(false);
    this.records.set(threadId, { threadId, value, revision: ++this.revision });
    return Promise.resolve(true);
  }

  update(entry: ParkedEntry, value: ParkedThread): Promise<ParkedEntry | null> {
    if (this.records.get(entry.threadId)?.revision !== entry.revision) return Promise.resolve(null);
    const updated = { threadId: entry.threadId, value, revision: ++this.revision };
    this.records.set(entry.threadId, updated);
    return Promise.resolve(updated);
  }

  remove(entry: ParkedEntry): Promise<boolean> {
    if (this.records.get(entry.threadId)?.revision !== entry.revision)
      return Promise.resolve(false);
    this.records.delete(entry.threadId);
    return Promise.resolve(true);
  }

  value(threadId: string): ParkedThread | undefined {
    return this.records.get(threadId)?.value;
  }
}

const policy = { maxDeliver: 3, ackWaitMs: 1_000 };

function setup() {
  const store = new MemoryStore();
  const clock = { now: 10_000 };
  const replica = (holder: string) => new ThreadParking(store, holder, policy, () => clock.now);
  return { store, clock, a: replica('a'), b: replica('b') };
}

describe('thread parking', () => {
  it('leaves a thread that is not parked to its partition', async () => {
    const { store, a } = setup();
    expect(await a.joinIfParked('t1', 5)).toBe(false);
    expect(store.records.size).toBe(0);
  });

  it('queues a parked thread’s later messages behind its first, once each', async () => {
    const { store, a, clock } = setup();
    await a.park('t1', 5, 1, clock.now + 200);
    expect(await a.joinIfParked('t1', 9)).toBe(true);
    // A redelivered follower (its partition ack was lost) is not queued twice.
    expect(await a.joinIfParked('t1', 9)).toBe(true);
    expect(store.value('t1')).toMatchObject({ sequences: [5, 9], deliveries: 1, holder: null });
  });

  it('never puts a late redelivery of an older message before the one being retried', async () => {
    const { store, a, clock } = setup();
    await a.park('t1', 5, 1, clock.now);
    const attempt = (await a.claim((await store.get('t1'))!))!;
    // Sequence 3 was handled in the partition, but its ack was lost: it comes back now.
    expect(await a.joinIfParked('t1', 3)).toBe(true);
    expect(store.value('t1')?.sequences).toEqual([5, 3]);
    await a.finish(attempt);
    expect(store.value('t1')?.sequences).toEqual([3]);
  });

  it('lets one replica claim the first message once it is due, counting the delivery', async () => {
    const { store, a, b, clock } = setup();
    await a.park('t1', 5, 1, clock.now + 200);
    const entry = (await store.get('t1'))!;
    expect(await a.claim(entry)).toBeNull();

    clock.now += 200;
    const attempt = await a.claim(entry);
    expect(attempt).toEqual({
      threadId: 't1',
      sequence: 5,
      deliveryCount: 2,
      outages: 0,
      exhausted: false,
    });
    expect(await b.claim(entry)).toBeNull();
    expect(store.value('t1')).toMatchObject({ holder: 'a', heldUntil: clock.now + 1_000 });
  });

  it('ignores a retry from an attempt that another replica took over after its deadline', async () => {
    const { store, a, b, clock } = setup();
    await a.park('t1', 5, 1, clock.now);
    const first = (await a.claim((await store.get('t1'))!))!;
    clock.now += 1_000;
    const second = (await b.claim((await store.get('t1'))!))!;
    expect(second.deliveryCount).toBe(3);

    await a.retryLater(first, 500);
    expect(store.value('t1')).toMatchObject({ holder: 'b', deliveries: 3 });
    await b.retryLater(second, 500);
    expect(store.value('t1')).toMatchObject({ holder: null, dueAt: clock.now + 500 });
  });

  it('gives up without running when the last allowed attempt never settled', async () => {
    const { store, a, b, clock } = setup();
    await a.park('t1', 5, 2, clock.now);
    const last = (await a.claim((await store.get('t1'))!))!;
    expect(last).toMatchObject({ deliveryCount: 3, exhausted: false });
    clock.now += 1_000;
    expect(await b.claim((await store.get('t1'))!)).toMatchObject({
      deliveryCount: 3,
      exhausted: true,
    });
  });

  it('does not count outage failures against the last allowed attempt', async () => {
    const { store, a, b, clock } = setup();
    // Parked after an outage on its first delivery, then three more outages: 4 deliveries, 0 spent.
    await a.park('t1', 5, 1, clock.now, 1);
    for (let i = 0; i < 3; i += 1) {
      const attempt = (await a.claim((await store.get('t1'))!))!;
      await a.retryLater(attempt, 0, true);
    }
    expect(store.value('t1')).toMatchObject({ deliveries: 4, outages: 4 });
    // Two attempts that hang: the first is taken over, the second (maxDeliver 3 spent) given up.
    const hung = (await a.claim((await store.get('t1'))!))!;
    expect(hung).toMatchObject({ deliveryCount: 5, outages: 4, exhausted: false });
    clock.now += 1_000;
    expect(await b.claim((await store.get('t1'))!)).toMatchObject({
      deliveryCount: 6,
      exhausted: false,
    });
    clock.now += 1_000;
    expect(await a.claim((await store.get('t1'))!)).toMatchObject({ exhausted: false });
    clock.now += 1_000;
    expect(await b.claim((await store.get('t1'))!)).toMatchObject({
      deliveryCount: 7,
      exhausted: true,
    });
  });

  it('parks a message once, however often it is parked while its record lasts', async () => {
    const { store, a, clock } = setup();
    await a.park('seq-5', 5, 0, clock.now);
    await a.park('seq-5', 5, 0, clock.now);
    expect(store.value('seq-5')?.sequences).toEqual([5]);
  });

  it('moves on to the next message when the first is done, and releases the thread after the last', async () => {
    const { store, a, clock } = setup();
    await a.park('t1', 5, 1, clock.now);
    await a.joinIfParked('t1', 9);
    const first = (await a.claim((await store.get('t1'))!))!;
    await a.finish(first);
    expect(store.value('t1')).toEqual({
      sequences: [9],
      deliveries: 0,
      outages: 0,
      dueAt: clock.now,
      holder: null,
      heldUntil: 0,
    });

    const second = (await a.claim((await store.get('t1'))!))!;
    expect(second).toMatchObject({ sequence: 9, deliveryCount: 1 });
    await a.finish(second);
    expect(store.records.has('t1')).toBe(false);
    expect(await a.joinIfParked('t1', 12)).toBe(false);
  });
});
