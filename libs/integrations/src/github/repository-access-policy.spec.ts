import { AppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import {
  CachedRepositoryPermissions,
  REPOSITORY_PERMISSION_TTL_MS,
  type RepositoryPermissionLookup,
} from './cached-repository-permissions.js';
import type { RepositoryPermission } from './github-repository-access.js';
import {
  RepositoryAccessPolicy,
  type GithubLoginLookup,
  type RepositoryAccessCheck,
} from './repository-access-policy.js';

const PRIVATE = { owner: 'acme', name: 'payroll-private' };
const ASKED = { source: 'slack' as const, externalId: 'U0ADA', repository: PRIVATE };

function policy(
  options: {
    check?: RepositoryAccessCheck;
    login?: string | null;
    permission?: RepositoryPermission | Error;
    app?: boolean;
  } = {},
) {
  let now = 1_000_000;
  const githubLoginFor = jest.fn(() => Promise.resolve(options.login ?? null));
  const answer = options.permission;
  const permissionOf = jest.fn((_login: string, _repository: unknown) =>
    answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer ?? 'none'),
  );
  const subject = new RepositoryAccessPolicy(
    options.check ?? 'github',
    strictMock<GithubLoginLookup>({ githubLoginFor }, 'logins'),
    // Composed as dispatch composes it: GitHub's answers kept a few minutes; no App, no lookup.
    options.app === false
      ? null
      : new CachedRepositoryPermissions(
          strictMock<RepositoryPermissionLookup>({ permissionOf }, 'permissions'),
          () => now,
        ),
  );
  return { subject, githubLoginFor, permissionOf, advance: (ms: number) => (now += ms) };
}

describe('RepositoryAccessPolicy', () => {
  it.each(['read', 'triage', 'write', 'maintain', 'admin'] as const)(
    'lets a linked person whose GitHub role is %s use the repository they named',
    async (permission) => {
      const { subject, permissionOf } = policy({ login: 'ada', permission });
      expect(await subject.refusal(ASKED)).toBeNull();
      expect(permissionOf).toHaveBeenCalledWith('ada', PRIVATE);
    },
  );

  it('refuses a linked person GitHub says has no access, naming the account and the way out', async () => {
    const { subject } = policy({ login: 'bob', permission: 'none' });
    const refusal = await subject.refusal({ ...ASKED, externalId: 'U0BOB' });
    expect(refusal?.reason).toBe(
      'slack:U0BOB (@bob) asked for acme/payroll-private, which @bob has no access to on GitHub',
    );
    expect(refusal?.reply).toMatch(/@bob has no access to acme\/payroll-private/);
    expect(refusal?.reply).toMatch(/REPOSITORY_ROUTES/);
  });

  it('refuses a person with no linked GitHub account without asking GitHub', async () => {
    const { subject, permissionOf } = policy({ login: null });
    const refusal = await subject.refusal(ASKED);
    expect(refusal?.reason).toBe(
      'slack:U0ADA asked for acme/payroll-private but has no linked GitHub account',
    );
    expect(refusal?.reply).toMatch(/Slack account is not linked to a GitHub account/);
    expect(refusal?.reply).toMatch(/dashboard/);
    expect(permissionOf).not.toHaveBeenCalled();
  });

  it('refuses when GitHub cannot be asked (no App), saying so', async () => {
    const { subject, permissionOf } = policy({ login: 'ada', app: false });
    expect((await subject.refusal(ASKED))?.reply).toMatch(/no GitHub App configured/);
    expect(permissionOf).not.toHaveBeenCalled();
  });

  it('throws, deciding nothing, when GitHub fails, and does not keep the failure', async () => {
    const outage = new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub 502');
    const failing = policy({ login: 'ada', permission: outage });
    await expect(failing.subject.refusal(ASKED)).rejects.toBe(outage);
    await expect(failing.subject.refusal(ASKED)).rejects.toBe(outage);
    expect(failing.permissionOf).toHaveBeenCalledTimes(2);
  });

  it('refuses, saying so, a repository the App cannot see (not installed, or no such repository)', async () => {
    const missing = new AppError('NOT_FOUND', 'GitHub: mint an installation token: Not Found');
    const { subject } = policy({ login: 'ada', permission: missing });
    const refusal = await subject.refusal(ASKED);
    expect(refusal?.reply).toMatch(/GitHub App cannot see it/);
    expect(refusal?.reply).not.toMatch(/ask again/);
  });

  it('keeps an answer per person and repository for a few minutes, then asks again', async () => {
    const { subject, permissionOf, advance } = policy({ login: 'ada', permission: 'read' });
    await subject.refusal(ASKED);
    await subject.refusal(ASKED);
    expect(permissionOf).toHaveBeenCalledTimes(1);
    await subject.refusal({ ...ASKED, repository: { owner: 'acme', name: 'widgets' } });
    expect(permissionOf).toHaveBeenCalledTimes(2);
    advance(REPOSITORY_PERMISSION_TTL_MS);
    await subject.refusal(ASKED);
    expect(permissionOf).toHaveBeenCalledTimes(3);
  });

  it('asks nothing when REPOSITORY_ACCESS_CHECK is off', async () => {
    const { subject, githubLoginFor } = policy({ check: 'off' });
    expect(await subject.refusal(ASKED)).toBeNull();
    expect(githubLoginFor).not.toHaveBeenCalled();
  });
});
