import {
  GITHUB_LOOKUP_SUBJECT_ID,
  GithubOrgMembershipLookup,
  GithubRepositoryPermissionLookup,
  REQUEST_CATALOGUE,
} from '../index.js';

describe('the GitHub lookups dispatch answers for the ingress', () => {
  it('are served by dispatch on one fixed id, and are in the request catalogue', () => {
    expect(GithubOrgMembershipLookup.subjectFor(GITHUB_LOOKUP_SUBJECT_ID)).toBe(
      `dispatch.${GITHUB_LOOKUP_SUBJECT_ID}.github-org-membership`,
    );
    expect(GithubRepositoryPermissionLookup.pattern).toBe(
      'dispatch.*.github-repository-permission',
    );
    expect(REQUEST_CATALOGUE).toEqual(
      expect.arrayContaining([GithubOrgMembershipLookup, GithubRepositoryPermissionLookup]),
    );
  });

  it('answer a role GitHub names, or that there is no App to ask with', () => {
    expect(
      GithubRepositoryPermissionLookup.parseResponse({ answered: true, permission: 'maintain' }),
    ).toEqual({ answered: true, permission: 'maintain' });
    expect(GithubOrgMembershipLookup.parseResponse({ answered: false })).toEqual({
      answered: false,
    });
    expect(() =>
      GithubRepositoryPermissionLookup.parseResponse({ answered: true, permission: 'owner' }),
    ).toThrow('malformed');
    expect(() => GithubOrgMembershipLookup.parseResponse({ answered: true })).toThrow('malformed');
  });

  it('take a repository by owner and name only', () => {
    const request = GithubOrgMembershipLookup.parseRequest({
      org: 'acme',
      login: 'alice',
      repository: { owner: 'acme', name: 'widgets', cloneUrl: '/srv/widgets' },
    });
    expect(request.repository).toEqual({ owner: 'acme', name: 'widgets' });
    expect(() =>
      GithubRepositoryPermissionLookup.parseRequest({ login: '', repository: request.repository }),
    ).toThrow('login');
  });
});
