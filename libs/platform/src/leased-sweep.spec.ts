import type { Bus, Lease } from '@caravel/messaging';
import { MemoryLeases, strictMock } from '@caravel/testing/doubles';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { LeasedSweep } from './leased-sweep.js';
import type { PlatformRuntime } from './runtime.js';

const START = new Date('2026-12-02T10:00:00Z');
const INTERVAL_MS = 90_000;

/** A sweep that counts its runs and, while one goes, records the lease it runs under. */
class CountingSweep extends LeasedSweep<number> {
  runs = 0;
  leaseDuringRun: Lease | null = null;
  fail = false;

  constructor(
    readonly leases: MemoryLeases,
    name: string,
  ) {
    super(
      {
        name: 'test sweep',
        logContext: 'TestSweep',
        leaseKey: 'test.sweep',
        intervalMs: INTERVAL_MS,
      },
      strictMock<Bus>({ leases }, 'bus'),
      strictMock<PlatformRuntime>({ name }, 'runtime'),
    );
  }

  protected async sweepOnce(): Promise<number> {
    this.leaseDuringRun = await this.leases.get('test.sweep');
    if (this.fail) throw new Error('db down');
    return ++this.runs;
  }
}

describe('a leased sweep', () => {
  afterEach(() => {
    jest.useRealTimers();
  });

  it('sweeps under its lease, held two intervals, and releases it after', async () => {
    const leases = new MemoryLeases({ now: () => START });
    const sweep = new CountingSweep(leases, 'dispatch-a');
    expect(await sweep.sweep()).toBe(1);
    expect(sweep.leaseDuringRun).toMatchObject({
      key: 'test.sweep',
      holder: 'dispatch-a',
      expiresAt: new Date(START.getTime() + 2 * INTERVAL_MS),
    });
    expect(await leases.get('test.sweep')).toBeNull();
  });

  it('does not sweep while another replica holds the lease', async () => {
    const leases = new MemoryLeases({ now: () => START });
    await leases.acquire('test.sweep', 'dispatch-b', 60_000);
    const sweep = new CountingSweep(leases, 'dispatch-a');
    expect(await sweep.sweep()).toBeNull();
    expect(sweep.runs).toBe(0);
  });

  it('answers null for a failed sweep, frees the lease, and sweeps again next time', async () => {
    const leases = new MemoryLeases({ now: () => START });
    const sweep = new CountingSweep(leases, 'dispatch-a');
    sweep.fail = true;
    expect(await sweep.sweep()).toBeNull();
    expect(await leases.get('test.sweep')).toBeNull();
    sweep.fail = false;
    expect(await sweep.sweep()).toBe(1);
  });

  it('sweeps every interval once the application has bootstrapped, until the module is destroyed', async () => {
    jest.useFakeTimers({ now: START });
    const sweep = new CountingSweep(new MemoryLeases(), 'dispatch-a');
    await jest.advanceTimersByTimeAsync(INTERVAL_MS);
    expect(sweep.runs).toBe(0);
    sweep.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    expect(sweep.runs).toBe(2);
    await sweep.onModuleDestroy();
    await jest.advanceTimersByTimeAsync(2 * INTERVAL_MS);
    expect(sweep.runs).toBe(2);
  });
});
