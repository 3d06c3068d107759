import type { Clock } from '@caravel/config';
import type { ReviewStyleRepository, ReviewStyleRow } from '@caravel/db';
import type { Bus, Lease, LeaseStore } from '@caravel/messaging';
import type { PlatformRuntime } from '@caravel/platform';
import type { AnalyzerConfig } from '../analyzer.config.js';
import { nightlySlot } from '../schedule/nightly-slot.js';
import { latestNightlySlot, NightlyAnalysesService } from './nightly-analyses.service.js';

const REPO = 'acme/widgets';
const { hour, minute } = nightlySlot(REPO);
const at = (day: number, h: number, m: number) => new Date(Date.UTC(2026, 11, day, h, m));

/** Leases as the bus keeps them: one holder per key until it expires or is released. */
class MemoryLeases implements LeaseStore {
  private readonly held = new Map<string, Lease>();
  constructor(private readonly clock: Clock) {}
  acquire(key: string, holder: string, ttlMs: number): Promise<Lease | null> {
    const now = this.clock.now().getTime();
    const live = this.held.get(key);
    if (live && live.expiresAt.getTime() > now) return Promise.resolve(null);
    const lease = {
      key,
      holder,
      revision: (live?.revision ?? 0) + 1,
      expiresAt: new Date(now + ttlMs),
    };
    this.held.set(key, lease);
    return Promise.resolve(lease);
  }
  renew(): Promise<Lease | null> {
    throw new Error('not used');
  }
  release(lease: Lease): Promise<boolean> {
    return Promise.resolve(this.held.delete(lease.key));
  }
  get(key: string): Promise<Lease | null> {
    return Promise.resolve(this.held.get(key) ?? null);
  }
}

function replica(name: string, leases: LeaseStore, clock: Clock, published: unknown[]) {
  const first = { version: 1, createdAt: at(1, 0, 0) } as ReviewStyleRow;
  const styles = {
    repositories: () => Promise.resolve([REPO]),
    history: () => Promise.resolve([first]),
  } as unknown as ReviewStyleRepository;
  const bus = {
    leases,
    publish: (_definition: unknown, envelope: unknown) => {
      published.push(envelope);
      return Promise.resolve({ duplicate: false });
    },
  } as unknown as Bus;
  const config = { analysis: { nightlyCheckMs: 60_000 } } as AnalyzerConfig;
  return new NightlyAnalysesService(styles, bus, { name } as PlatformRuntime, clock, config);
}

describe('the nightly schedule', () => {
  let now: Date;
  const clock: Clock = { now: () => now };

  it('finds the latest slot at or before a time', () => {
    expect(latestNightlySlot(REPO, at(2, hour, minute))).toEqual(at(2, hour, minute));
    expect(latestNightlySlot(REPO, at(2, 4, 0))).toEqual(at(1, hour, minute));
  });

  it('asks once per night at the slot, across checks, restarts and replicas', async () => {
    const leases = new MemoryLeases(clock);
    const published: { data: { mode: string; requestedBy: string } }[] = [];
    now = at(1, hour, minute);
    expect(await replica('a', leases, clock, published).check()).toEqual([REPO]);
    expect(published.map((p) => [p.data.mode, p.data.requestedBy])).toEqual([
      ['continual', 'nightly'],
    ]);
    now = at(1, hour, minute + 1);
    expect(await replica('a', leases, clock, published).check()).toEqual([]);
    expect(await replica('b', leases, clock, published).check()).toEqual([]);
    now = at(2, hour + 1, 0);
    expect(await replica('b', leases, clock, published).check()).toEqual([REPO]);
    expect(published).toHaveLength(2);
  });

  it('does not ask for a slot before the first version was saved', async () => {
    const published: unknown[] = [];
    now = at(1, 0, 0);
    // The latest slot at midnight on the 1st was on the 30th, before the style was saved.
    expect(latestNightlySlot(REPO, now) < at(1, 0, 0)).toBe(true);
    expect(await replica('a', new MemoryLeases(clock), clock, published).check()).toEqual([]);
    expect(published).toEqual([]);
  });
});
