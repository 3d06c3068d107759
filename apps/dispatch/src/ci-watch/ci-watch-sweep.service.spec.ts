import type { CiWatchRepository } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import type { Bus } from '@caravel/messaging';
import type { PlatformRuntime } from '@caravel/platform';
import { MemoryLeases, strictMock } from '@caravel/testing/doubles';
import { jest } from '@jest/globals';
import { dispatchConfigOf, dispatchEnvSchema } from '../dispatch.config.js';
import { CiWatchSweepService } from './ci-watch-sweep.service.js';
import type { CiWatchService } from './ci-watch.service.js';
import type { PullRequestStatePort } from './pull-request-state.port.js';

const NOW = new Date('2026-12-01T10:00:00Z');

function setup(leaseHeld = false) {
  const settling = factory.ciWatch({ retryAt: NOW });
  const conflicted = factory.ciWatch({ pullRequest: 8 });
  const foreign = factory.ciWatch({ repositoryOwner: 'elsewhere' });
  const evaluate = jest.fn<CiWatchService['evaluate']>(() => Promise.resolve(null));
  const read = jest.fn<PullRequestStatePort['read']>((repository) =>
    Promise.resolve(
      repository.owner === 'elsewhere'
        ? null
        : { state: 'open', headSha: 'a'.repeat(40), mergeable: false },
    ),
  );
  const leases = new MemoryLeases({ now: () => NOW });
  if (leaseHeld) void leases.acquire('dispatch.ci-watch-sweep', 'dispatch-1', 60_000);
  const sweep = new CiWatchSweepService(
    strictMock<CiWatchRepository>({
      due: jest.fn(() => Promise.resolve([settling])),
      listActive: jest.fn(() => Promise.resolve([conflicted, foreign])),
    }),
    strictMock<CiWatchService>({ evaluate }),
    strictMock<PullRequestStatePort>({ read }),
    strictMock<Bus>({ leases }),
    strictMock<PlatformRuntime>({ name: 'dispatch-0' }),
    { now: () => NOW },
    dispatchConfigOf(dispatchEnvSchema.parse({})),
  );
  return { sweep, evaluate, leases, settling, conflicted };
}

describe('CiWatchSweepService', () => {
  it('looks again at settling greens and polls each watched pull request for conflicts', async () => {
    const { sweep, evaluate, leases, settling, conflicted } = setup();
    expect(await sweep.sweep()).toEqual({ settled: 1, polled: 1, unreadable: 1 });
    expect(evaluate.mock.calls).toEqual([
      [settling.id],
      [conflicted.id, { state: 'open', headSha: 'a'.repeat(40), mergeable: false }],
    ]);
    expect(await leases.get('dispatch.ci-watch-sweep')).toBeNull();
  });

  it('does nothing while another replica holds the sweep', async () => {
    const { sweep, evaluate } = setup(true);
    expect(await sweep.sweep()).toBeNull();
    expect(evaluate).not.toHaveBeenCalled();
  });
});
