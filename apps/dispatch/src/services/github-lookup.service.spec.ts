import { AppError } from '@caravel/errors';
import { integrationsConfigOf, type RepositoryPermissionLookup } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import {
  GithubLookupService,
  githubLookupService,
  type OrgMembershipPort,
} from './github-lookup.service.js';

const WIDGETS = { owner: 'acme', name: 'widgets' };
/** A port nothing listens on: a call that is made fails at once. */
const GITHUB = 'http://127.0.0.1:9';

describe('GithubLookupService', () => {
  it('answers a membership question with what GitHub says, asked for the repository', async () => {
    const isMember = jest.fn((_org: string, login: string, _repository: unknown) =>
      Promise.resolve(login === 'alice'),
    );
    const service = new GithubLookupService(
      strictMock<OrgMembershipPort>({ isMember }, 'membership'),
      strictMock<RepositoryPermissionLookup>({}, 'permissions'),
    );
    const ask = (login: string) =>
      service.orgMembership({ org: 'acme', login, repository: WIDGETS });
    expect(await ask('alice')).toEqual({ answered: true, member: true });
    expect(await ask('mallory')).toEqual({ answered: true, member: false });
    expect(isMember).toHaveBeenCalledWith('acme', 'mallory', WIDGETS);
  });

  it("answers a permission question with the person's role", async () => {
    const permissionOf = jest.fn((_login: string, _repository: unknown) =>
      Promise.resolve('write' as const),
    );
    const service = new GithubLookupService(
      strictMock<OrgMembershipPort>({}, 'membership'),
      strictMock<RepositoryPermissionLookup>({ permissionOf }, 'permissions'),
    );
    expect(await service.repositoryPermission({ login: 'ada', repository: WIDGETS })).toEqual({
      answered: true,
      permission: 'write',
    });
    expect(permissionOf).toHaveBeenCalledWith('ada', WIDGETS);
  });

  it("lets GitHub's coded failure through, for the transport to hand back", async () => {
    const service = new GithubLookupService(
      strictMock<OrgMembershipPort>(
        { isMember: () => Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub 502')) },
        'membership',
      ),
      strictMock<RepositoryPermissionLookup>(
        { permissionOf: () => Promise.reject(new AppError('NOT_FOUND', 'not installed')) },
        'permissions',
      ),
    );
    await expect(
      service.orgMembership({ org: 'acme', login: 'x', repository: WIDGETS }),
    ).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    await expect(
      service.repositoryPermission({ login: 'x', repository: WIDGETS }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('answers that it cannot ask without any GitHub credential', async () => {
    const service = githubLookupService(integrationsConfigOf({ GITHUB_API_URL: GITHUB }));
    expect(await service.orgMembership({ org: 'acme', login: 'x', repository: WIDGETS })).toEqual({
      answered: false,
    });
    expect(await service.repositoryPermission({ login: 'x', repository: WIDGETS })).toEqual({
      answered: false,
    });
  });

  it('asks membership as the App alone, permissions with the development token too', async () => {
    const service = githubLookupService(
      integrationsConfigOf({ GITHUB_API_URL: GITHUB, GITHUB_TOKEN: 'ghp_dev' }),
    );
    expect(await service.orgMembership({ org: 'acme', login: 'x', repository: WIDGETS })).toEqual({
      answered: false,
    });
    // Asked, so it fails on the closed port instead of answering false.
    await expect(
      service.repositoryPermission({ login: 'x', repository: WIDGETS }),
    ).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
  });
});
