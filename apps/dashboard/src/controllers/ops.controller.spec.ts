import type { ThreadRepository, ThreadRow } from '@caravel/db';
import type { RepositoryPermissionLookup } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import { ThreadAccessPolicy, type ThreadPeople } from '../auth/thread-access.policy.js';
import type { OpsService, OpsView } from '../services/ops.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';
import { personCaller } from '../testing/callers.js';
import { OpsController } from './ops.controller.js';

const THREADS: Record<string, ThreadRow> = {
  web: { id: 'web', repositoryOwner: 'acme', repositoryName: 'web' } as ThreadRow,
  payroll: { id: 'payroll', repositoryOwner: 'acme', repositoryName: 'payroll' } as ThreadRow,
};

const VIEW = {
  queue: { waiting: 2, runs: [{ threadId: 'web' }, { threadId: 'payroll' }] },
  failures: [{ exitStatus: 'error', runs: 1, latestSummary: 'payroll.csv could not be parsed' }],
} as unknown as OpsView;

function controller() {
  const ops = strictMock<OpsService>({ summary: async () => VIEW }, 'ops');
  const threads = strictMock<ThreadRepository>(
    { get: async (id: string) => THREADS[id] ?? null },
    'threads',
  );
  const webOnly = strictMock<RepositoryPermissionLookup>({
    permissionOf: async (_login, repository) => (repository.name === 'web' ? 'read' : 'none'),
  });
  const policy = new ThreadAccessPolicy(webOnly, strictMock<ThreadPeople>({}, 'people'));
  return new OpsController(ops, new VisibleThreadsService(threads, policy));
}

describe('GET /api/ops', () => {
  it('shows a member only the waiting runs of threads they may see, and no failed run’s summary', async () => {
    const view = await controller().summary({ days: 7 }, personCaller('octocat'));

    expect(view.queue.runs).toEqual([{ threadId: 'web' }]);
    expect(view.failures).toEqual([{ exitStatus: 'error', runs: 1, latestSummary: '' }]);
  });

  it('shows an admin everything', async () => {
    expect(await controller().summary({ days: 7 }, personCaller('hubot', 'admin'))).toEqual(VIEW);
  });
});
