import { describe, expect, it, jest } from '@jest/globals';
import { strictMock } from '@caravel/testing/doubles';
import {
  CachedRepositoryPermissions,
  REPOSITORY_PERMISSION_TTL_MS,
  type RepositoryPermissionLookup,
} from './cached-repository-permissions.js';
import type { RepositoryPermission } from './github-repository-access.js';

const WEB = { owner: 'acme', name: 'web' };

function lookupAnswering(...answers: (RepositoryPermission | Error)[]) {
  const permissionOf = jest.fn(async () => {
    const next = answers.shift();
    if (next === undefined) throw new Error('asked more often than expected');
    if (next instanceof Error) throw next;
    return next;
  });
  return { permissionOf, lookup: strictMock<RepositoryPermissionLookup>({ permissionOf }) };
}

describe('CachedRepositoryPermissions', () => {
  it('keeps an answer per login and repository (whatever their case) until it is too old', async () => {
    let now = 1_000;
    const { permissionOf, lookup } = lookupAnswering('write', 'none');
    const cache = new CachedRepositoryPermissions(lookup, () => now);

    expect(await cache.permissionOf('Octocat', WEB)).toBe('write');
    now += REPOSITORY_PERMISSION_TTL_MS - 1;
    expect(await cache.permissionOf('octocat', { owner: 'ACME', name: 'Web' })).toBe('write');
    expect(permissionOf).toHaveBeenCalledTimes(1);

    now += 1;
    expect(await cache.permissionOf('octocat', WEB)).toBe('none');
    expect(permissionOf).toHaveBeenCalledTimes(2);
  });

  it('does not keep a failure: the next question asks GitHub again', async () => {
    const { permissionOf, lookup } = lookupAnswering(new Error('GitHub is down'), 'read');
    const cache = new CachedRepositoryPermissions(lookup, () => 0);

    await expect(cache.permissionOf('octocat', WEB)).rejects.toThrow('GitHub is down');
    expect(await cache.permissionOf('octocat', WEB)).toBe('read');
    expect(permissionOf).toHaveBeenCalledTimes(2);
  });

  it('forgets the oldest answer past its size', async () => {
    const { permissionOf, lookup } = lookupAnswering('read', 'read', 'read', 'admin');
    const cache = new CachedRepositoryPermissions(lookup, () => 0, { maxAnswers: 2 });

    await cache.permissionOf('a', WEB);
    await cache.permissionOf('b', WEB);
    await cache.permissionOf('c', WEB); // a goes
    expect(await cache.permissionOf('b', WEB)).toBe('read');
    expect(await cache.permissionOf('a', WEB)).toBe('admin');
    expect(permissionOf).toHaveBeenCalledTimes(4);
  });
});
