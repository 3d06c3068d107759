import type { ThreadRepository, ThreadRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { AppError } from '@caravel/errors';
import type { RepositoryPermissionLookup } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { ThreadAccessPolicy, type ThreadPeople } from '../auth/thread-access.policy.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/**
 * The real visibility rules over a GitHub where every member may read `readable` (`owner/name`,
 * any case) and nothing else; `threads` are the threads there are.
 */
export function visibleOnGitHub(
  readable: readonly string[],
  threads: Record<string, ThreadRow> = {},
): VisibleThreadsService {
  const slugs = new Set(readable.map((slug) => slug.toLowerCase()));
  const github = strictMock<RepositoryPermissionLookup>(
    {
      permissionOf: async (_login, { owner, name }) =>
        slugs.has(`${owner}/${name}`.toLowerCase()) ? 'read' : 'none',
    },
    'github',
  );
  const policy = new ThreadAccessPolicy(github, strictMock<ThreadPeople>({}, 'people'));
  const rows = strictMock<ThreadRepository>(
    { get: async (id: string) => threads[id] ?? null },
    'threads',
  );
  return new VisibleThreadsService(rows, policy);
}

/** Every thread visible to everyone but `hiddenFrom`, who gets the 404 of a missing thread. */
export function visibleThreadsHidingFrom(hiddenFrom: string): VisibleThreadsService {
  return strictMock<VisibleThreadsService>(
    {
      thread: (caller, id) =>
        caller?.kind === 'person' && caller.session.login === hiddenFrom
          ? Promise.reject(new AppError('NOT_FOUND', `no thread ${id}`))
          : Promise.resolve(factory.thread({ id })),
    },
    'visible threads',
  );
}
