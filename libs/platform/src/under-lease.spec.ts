import { describe, expect, it } from '@jest/globals';
import { periodicLease } from './under-lease.js';

describe('the lease of periodic work', () => {
  it('is held two intervals, and a minute at least', () => {
    expect(periodicLease('dispatch.sweep', 'dispatch-1', 30_000)).toEqual({
      key: 'dispatch.sweep',
      holder: 'dispatch-1',
      ttlMs: 60_000,
    });
    expect(periodicLease('k', 'h', 5_000).ttlMs).toBe(60_000);
    expect(periodicLease('k', 'h', 600_000).ttlMs).toBe(1_200_000);
  });
});
