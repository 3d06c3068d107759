import type { Clock } from '@caravel/config';
import type { ReviewStyleRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { Bus, LeaseStore } from '@caravel/messaging';
import type { PlatformRuntime } from '@caravel/platform';
import { MemoryLeases, strictMock } from '@caravel/testing/doubles';
import type { AnalyzerConfig } from '../analyzer.config.js';
import { nightlySlot } from '../schedule/nightly-slot.js';
import { latestNightlySlot, NightlyAnalysesService } from './nightly-analyses.service.js';

const REPO = 'acme/widgets';
const { hour, minute } = nightlySlot(REPO);
const at = (day: number, h: number, m: number) => new Date(Date.UTC(2026, 11, day, h, m));

function replica(name: string, leases: LeaseStore, clock: Clock, published: unknown[]) {
  const first = factory.reviewStyle({ version: 1, createdAt: at(1, 0, 0) });
  const styles = strictMock<ReviewStyleRepository>({
    repositories: () => Promise.resolve([REPO]),
    history: () => Promise.resolve([first]),
  });
  const bus = strictMock<Bus>({
    leases,
    publish: (_definition, envelope) => {
      published.push(envelope);
      return Promise.resolve({ stream: 'ANALYZER', sequence: published.length, duplicate: false });
    },
  });
  const runtime = strictMock<PlatformRuntime>({ name });
  const config = { analysis: { nightlyCheckMs: 60_000 } } as AnalyzerConfig;
  return new NightlyAnalysesService(styles, bus, runtime, clock, config);
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
    expect(await replica('a', leases, clock, published).sweep()).toEqual([REPO]);
    expect(published.map((p) => [p.data.mode, p.data.requestedBy])).toEqual([
      ['continual', 'nightly'],
    ]);
    now = at(1, hour, minute + 1);
    expect(await replica('a', leases, clock, published).sweep()).toEqual([]);
    expect(await replica('b', leases, clock, published).sweep()).toEqual([]);
    now = at(2, hour + 1, 0);
    expect(await replica('b', leases, clock, published).sweep()).toEqual([REPO]);
    expect(published).toHaveLength(2);
  });

  it('does not ask for a slot before the first version was saved', async () => {
    const published: unknown[] = [];
    now = at(1, 0, 0);
    // The latest slot at midnight on the 1st was on the 30th, before the style was saved.
    expect(latestNightlySlot(REPO, now) < at(1, 0, 0)).toBe(true);
    expect(await replica('a', new MemoryLeases(clock), clock, published).sweep()).toEqual([]);
    expect(published).toEqual([]);
  });
});
