import {
  GITHUB_LOOKUP_SUBJECT_ID,
  GithubOrgMembershipLookup,
  GithubRepositoryPermissionLookup,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { Bus } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { isGithubAppUnset } from '../ingress.errors.js';
import { DispatchGithubLookups, GITHUB_LOOKUP_TIMEOUT_MS } from './github-lookups.js';

const WIDGETS = { owner: 'acme', name: 'widgets', ownerIsOrganization: true, private: false };

/** A bus whose only use is one request, answered with `answer` (or failing with it). */
function busAnswering(answer: unknown) {
  const request = jest.fn((_subject: string, _payload: unknown, _options: unknown) =>
    answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer),
  );
  return { bus: strictMock<Pick<Bus, 'request'>>({ request } as never, 'bus'), request };
}

describe('DispatchGithubLookups: organization membership', () => {
  it('asks dispatch on its lookup subject, with the repository alone, and takes its answer', async () => {
    const { bus, request } = busAnswering({ answered: true, member: true });
    expect(await new DispatchGithubLookups(bus).isMember('acme', 'alice', WIDGETS)).toBe(true);
    expect(request.mock.calls).toEqual([
      [
        GithubOrgMembershipLookup.subjectFor(GITHUB_LOOKUP_SUBJECT_ID),
        { org: 'acme', login: 'alice', repository: { owner: 'acme', name: 'widgets' } },
        { timeoutMs: GITHUB_LOOKUP_TIMEOUT_MS },
      ],
    ]);
  });

  it('says not a member when dispatch says so', async () => {
    const { bus } = busAnswering({ answered: true, member: false });
    expect(await new DispatchGithubLookups(bus).isMember('acme', 'mallory', WIDGETS)).toBe(false);
  });

  it('throws that there is no App when dispatch has none', async () => {
    const { bus } = busAnswering({ answered: false });
    const failure = await new DispatchGithubLookups(bus)
      .isMember('acme', 'mallory', WIDGETS)
      .catch((error: unknown) => error);
    expect(isGithubAppUnset(failure)).toBe(true);
  });

  it('fails as a GitHub outage when dispatch does not answer, and on a garbled answer', async () => {
    const silent = busAnswering(new AppError('TIMEOUT', 'no responders')).bus;
    await expect(
      new DispatchGithubLookups(silent).isMember('acme', 'x', WIDGETS),
    ).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
      message: 'dispatch did not answer: no responders',
    });
    const garbled = busAnswering({ answered: true }).bus;
    await expect(new DispatchGithubLookups(garbled).isMember('acme', 'x', WIDGETS)).rejects.toThrow(
      /github-org-membership response/,
    );
  });
});

describe('DispatchGithubLookups: repository permissions', () => {
  it('asks dispatch for the role on its lookup subject and takes its answer', async () => {
    const { bus, request } = busAnswering({ answered: true, permission: 'triage' });
    const repository = { owner: 'acme', name: 'payroll', cloneUrl: '/srv/payroll' };
    expect(await new DispatchGithubLookups(bus).permissionOf('ada', repository)).toBe('triage');
    expect(request.mock.calls).toEqual([
      [
        GithubRepositoryPermissionLookup.subjectFor(GITHUB_LOOKUP_SUBJECT_ID),
        { login: 'ada', repository: { owner: 'acme', name: 'payroll' } },
        { timeoutMs: GITHUB_LOOKUP_TIMEOUT_MS },
      ],
    ]);
  });

  it("keeps the responder's code: a repository the App cannot see stays NOT_FOUND", async () => {
    const { bus } = busAnswering(new AppError('NOT_FOUND', 'the App is not installed on it'));
    await expect(new DispatchGithubLookups(bus).permissionOf('ada', WIDGETS)).rejects.toMatchObject(
      { code: 'NOT_FOUND' },
    );
  });

  it('throws that there is no App when dispatch has none', async () => {
    const { bus } = busAnswering({ answered: false });
    const failure = await new DispatchGithubLookups(bus)
      .permissionOf('ada', WIDGETS)
      .catch((error: unknown) => error);
    expect(isGithubAppUnset(failure)).toBe(true);
  });
});
