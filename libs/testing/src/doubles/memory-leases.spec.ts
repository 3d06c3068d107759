import { describe, expect, it } from '@jest/globals';
import { MemoryLeases } from './memory-leases.js';

describe('MemoryLeases', () => {
  let now = new Date('2026-12-02T10:00:00Z');
  const later = (ms: number) => (now = new Date(now.getTime() + ms));

  it('gives a key to one holder until the lease expires, then to the next', async () => {
    const leases = new MemoryLeases({ now: () => now });
    const first = await leases.acquire('sweep', 'a', 60_000);
    expect(first).toMatchObject({ key: 'sweep', holder: 'a', revision: 1 });
    expect(await leases.acquire('sweep', 'b', 60_000)).toBeNull();
    later(60_000);
    expect(await leases.get('sweep')).toBeNull();
    expect(await leases.acquire('sweep', 'b', 60_000)).toMatchObject({ holder: 'b', revision: 2 });
  });

  it('renews and releases only the revision it holds', async () => {
    const leases = new MemoryLeases({ now: () => now });
    const held = (await leases.acquire('sweep', 'a', 60_000))!;
    const renewed = (await leases.renew(held, 60_000))!;
    expect(renewed.revision).toBe(2);
    expect(await leases.renew(held, 60_000)).toBeNull();
    expect(await leases.release(held)).toBe(false);
    expect(await leases.release(renewed)).toBe(true);
    expect(await leases.get('sweep')).toBeNull();
  });
});
