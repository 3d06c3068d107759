import type {
  IdentityRepository,
  ThreadListQuery,
  ThreadPlanRepository,
  ThreadRepository,
  ThreadRow,
} from '@caravel/db';
import type { RepositoryPermissionLookup } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { ThreadAccessPolicy, type ThreadPeople } from '../auth/thread-access.policy.js';
import { personCaller } from '../testing/callers.js';
import { threadPeopleOf, VisibleThreadsService } from './visible-threads.service.js';

function thread(id: string, repositoryName: string): ThreadRow {
  return { id, repositoryOwner: 'acme', repositoryName } as ThreadRow;
}

/** Newest first: web and payroll threads taking turns, t0 the newest. */
const STORED = Array.from({ length: 12 }, (_, i) =>
  thread(`t${i}`, i % 3 === 0 ? 'web' : 'payroll'),
);

function service(permissions: RepositoryPermissionLookup | null) {
  const list = jest.fn(async (query: ThreadListQuery) => STORED.slice(0, query.limit));
  const get = jest.fn(async (id: string) => STORED.find((row) => row.id === id) ?? null);
  const threads = strictMock<ThreadRepository>({ list, get }, 'threads');
  const policy = new ThreadAccessPolicy(permissions, strictMock<ThreadPeople>({}, 'people'));
  return { list, visible: new VisibleThreadsService(threads, policy) };
}

/** octocat sees acme/web only. */
const webOnly = strictMock<RepositoryPermissionLookup>({
  permissionOf: async (_login, repository) => (repository.name === 'web' ? 'write' : 'none'),
});

describe('VisibleThreadsService', () => {
  it('fills a member’s page with threads they may see, reading further past hidden ones', async () => {
    const { list, visible } = service(webOnly);

    const page = await visible.list(personCaller('octocat'), { limit: 3 });

    expect(page.map((row) => row.id)).toEqual(['t0', 't3', 't6']);
    expect(list.mock.calls.map(([query]) => query.limit)).toEqual([3, 12]);
  });

  it('answers a hidden thread as a missing one (404, the same words)', async () => {
    const { visible } = service(webOnly);

    await expect(visible.thread(personCaller('octocat'), 't1')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'no thread t1',
    });
    await expect(visible.thread(personCaller('octocat'), 'nope')).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: 'no thread nope',
    });
    expect((await visible.thread(personCaller('octocat'), 't3')).id).toBe('t3');
  });

  it('keeps only the runs of threads the member may see', async () => {
    const { visible } = service(webOnly);
    const runs = [{ threadId: 't0' }, { threadId: 't1' }, { threadId: 't0' }];

    expect(await visible.ofVisibleThreads(personCaller('octocat'), runs)).toEqual([
      { threadId: 't0' },
      { threadId: 't0' },
    ]);
  });

  it('keeps only the reviewed pull requests of repositories the member may see', async () => {
    const { visible } = service(webOnly);
    const reviewed = [{ repo: 'payroll' }, { repo: 'web' }];

    expect(
      await visible.ofVisibleRepositories(personCaller('octocat'), reviewed, ({ repo }) => ({
        owner: 'acme',
        name: repo,
      })),
    ).toEqual([{ repo: 'web' }]);
  });

  it('lists everything in one read without a GitHub credential', async () => {
    const { list, visible } = service(null);

    expect(await visible.list(personCaller('octocat'), { limit: 3 })).toHaveLength(3);
    expect(list).toHaveBeenCalledTimes(1);
  });
});

describe('threadPeopleOf', () => {
  const plans = strictMock<ThreadPlanRepository>({}, 'plans');

  it("finds a handle's GitHub login through the identity map", async () => {
    const findBy = jest.fn(async (_handle: string, _value: string) => ({
      id: 'i1',
      githubLogin: 'ada',
    }));
    const identities = strictMock<IdentityRepository>({ findBy } as never, 'identities');
    await expect(threadPeopleOf(plans, identities).githubLoginOf('slack:U0ADA')).resolves.toBe(
      'ada',
    );
    expect(findBy).toHaveBeenCalledWith('slackUserId', 'U0ADA');
  });

  it('knows no login for a handle whose source the identity map does not know', async () => {
    const identities = strictMock<IdentityRepository>({}, 'identities');
    const people = threadPeopleOf(plans, identities);
    await expect(people.githubLoginOf('dashboard:ada')).resolves.toBeNull();
    await expect(people.githubLoginOf('no-source')).resolves.toBeNull();
  });
});
