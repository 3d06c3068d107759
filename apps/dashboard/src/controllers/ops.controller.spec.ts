import type { ThreadRow } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import type { OpsService, OpsView } from '../services/ops.service.js';
import { personCaller } from '../testing/callers.js';
import { visibleOnGitHub } from '../testing/visible-threads.js';
import { OpsController } from './ops.controller.js';

const THREADS: Record<string, ThreadRow> = {
  web: { id: 'web', repositoryOwner: 'acme', repositoryName: 'web' } as ThreadRow,
  payroll: { id: 'payroll', repositoryOwner: 'acme', repositoryName: 'payroll' } as ThreadRow,
};

const VIEW = {
  queue: { waiting: 2, runs: [{ threadId: 'web' }, { threadId: 'payroll' }] },
  failures: [{ exitStatus: 'error', runs: 1, latestSummary: 'payroll.csv could not be parsed' }],
  byRepository: [{ key: 'acme/web' }, { key: 'acme/payroll' }],
} as unknown as OpsView;

function controller() {
  const ops = strictMock<OpsService>({ summary: async () => VIEW }, 'ops');
  return new OpsController(ops, visibleOnGitHub(['acme/web'], THREADS));
}

describe('GET /api/ops', () => {
  it('shows a member only the waiting runs and repository rows they may see, and no failed run’s summary', async () => {
    const view = await controller().summary({ days: 7 }, personCaller('octocat'));

    expect(view.queue.runs).toEqual([{ threadId: 'web' }]);
    expect(view.byRepository).toEqual([{ key: 'acme/web' }]);
    expect(view.failures).toEqual([{ exitStatus: 'error', runs: 1, latestSummary: '' }]);
  });

  it('shows an admin everything', async () => {
    expect(await controller().summary({ days: 7 }, personCaller('hubot', 'admin'))).toEqual(VIEW);
  });
});
