import type { IdentityRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import type { RepositoryPermission, RepositoryPermissionLookup } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { personCaller } from '../testing/callers.js';
import type { Caller } from './session.types.js';
import { ThreadAccessPolicy, type ThreadPeople } from './thread-access.policy.js';

const PAYROLL = { id: 't-payroll', repositoryOwner: 'acme', repositoryName: 'payroll' };
const SLACK_QUESTION = { id: 't-slack', repositoryOwner: null, repositoryName: null };

function permissionsAnswering(answer: RepositoryPermission | Error) {
  const permissionOf = jest.fn(
    async (_login: string, _repository: unknown): Promise<RepositoryPermission> => {
      if (answer instanceof Error) throw answer;
      return answer;
    },
  );
  return { permissionOf, lookup: strictMock<RepositoryPermissionLookup>({ permissionOf }) };
}

function people(owner: string | null, identity: Partial<IdentityRow> | null = null): ThreadPeople {
  return strictMock<ThreadPeople>({
    ownerOf: async () => owner,
    githubLoginOf: async () => identity?.githubLogin ?? null,
  });
}

const noPeople = strictMock<ThreadPeople>({}, 'people');
const tokenCaller: Caller = {
  ...(personCaller('mallory') as Extract<Caller, { kind: 'person' }>),
  token: { id: 'a', scope: 'act' },
};

describe('ThreadAccessPolicy', () => {
  it('shows a member a thread when GitHub gives their login any role on its repository', async () => {
    const { permissionOf, lookup } = permissionsAnswering('read');
    const policy = new ThreadAccessPolicy(lookup, noPeople);

    expect(await policy.mayRead(personCaller('octocat'), PAYROLL)).toBe(true);
    expect(permissionOf).toHaveBeenCalledWith('octocat', { owner: 'acme', name: 'payroll' });
  });

  it('hides it from a member GitHub gives no role (none), and from their API token', async () => {
    const policy = new ThreadAccessPolicy(permissionsAnswering('none').lookup, noPeople);

    expect(await policy.mayRead(personCaller('mallory'), PAYROLL)).toBe(false);
    expect(await policy.mayRead(tokenCaller, PAYROLL)).toBe(false);
  });

  it('hides it when the App cannot see the repository (GitHub says NOT_FOUND)', async () => {
    const gone = new AppError('NOT_FOUND', 'the App is not installed on acme/payroll');
    const policy = new ThreadAccessPolicy(permissionsAnswering(gone).lookup, noPeople);

    expect(await policy.mayRead(personCaller('mallory'), PAYROLL)).toBe(false);
  });

  it('fails closed with a 503 naming GitHub when GitHub cannot be asked', async () => {
    const down = new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub answered 502');
    const policy = new ThreadAccessPolicy(permissionsAnswering(down).lookup, noPeople);

    const refusal = policy.mayRead(personCaller('mallory'), PAYROLL);
    await expect(refusal).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    await expect(refusal).rejects.toThrow(
      /GitHub could not be asked whether mallory may see acme\/payroll/,
    );
  });

  it('does not ask GitHub for admins, the machine token or an open read', async () => {
    const policy = new ThreadAccessPolicy(
      strictMock<RepositoryPermissionLookup>({}, 'GitHub'),
      noPeople,
    );

    expect(await policy.mayRead(personCaller('hubot', 'admin'), PAYROLL)).toBe(true);
    expect(await policy.mayRead({ kind: 'machine' }, PAYROLL)).toBe(true);
    expect(await policy.mayRead(null, PAYROLL)).toBe(true);
  });

  it('keeps today’s behaviour without any GitHub credential: every member sees every thread', async () => {
    const policy = new ThreadAccessPolicy(null, noPeople);

    expect(await policy.mayRead(personCaller('mallory'), PAYROLL)).toBe(true);
    expect(policy.seesAll(personCaller('mallory'))).toBe(true);
  });

  it('shows a thread with no repository to the person who asked for it, by the identity map', async () => {
    const github = strictMock<RepositoryPermissionLookup>({}, 'GitHub');
    const asker = new ThreadAccessPolicy(github, people('slack:U42', { githubLogin: 'octocat' }));
    const stranger = new ThreadAccessPolicy(
      github,
      people('slack:U42', { githubLogin: 'someone' }),
    );
    const directly = new ThreadAccessPolicy(github, people('github:OctoCat'));
    const ownerless = new ThreadAccessPolicy(github, people(null));

    expect(await asker.mayRead(personCaller('OctoCat'), SLACK_QUESTION)).toBe(true);
    expect(await stranger.mayRead(personCaller('octocat'), SLACK_QUESTION)).toBe(false);
    expect(await directly.mayRead(personCaller('octocat'), SLACK_QUESTION)).toBe(true);
    expect(await ownerless.mayRead(personCaller('octocat'), SLACK_QUESTION)).toBe(false);
    expect(await ownerless.mayRead(personCaller('hubot', 'admin'), SLACK_QUESTION)).toBe(true);
  });

  it('reads a repository (a review ledger) by the same rule', async () => {
    const policy = new ThreadAccessPolicy(permissionsAnswering('none').lookup, noPeople);

    expect(
      await policy.mayReadRepository(personCaller('mallory'), { owner: 'acme', name: 'payroll' }),
    ).toBe(false);
    expect(
      await policy.mayReadRepository({ kind: 'machine' }, { owner: 'acme', name: 'payroll' }),
    ).toBe(true);
  });
});
