import type {
  OrgMembershipLookupResponse,
  RepositoryPermissionLookupResponse,
  RequestOf,
  GithubOrgMembershipLookup,
  GithubRepositoryPermissionLookup,
} from '@caravel/contracts';
import {
  IntegrationAdapters,
  type GitHubOrgMembership,
  type IntegrationsConfig,
  type RepositoryPermissionLookup,
} from '@caravel/integrations';

/** Organization membership as GitHub answers it (`GitHubOrgMembership`). */
export type OrgMembershipPort = Pick<GitHubOrgMembership, 'isMember'>;

/**
 * What the ingress asks about GitHub people, answered here as the GitHub App: the ingress faces
 * the internet and holds no App key, so its public-repository gate and its access check of a
 * repository named in a chat ask dispatch (`GithubOrgMembershipLookup`,
 * `GithubRepositoryPermissionLookup`). Without the App the answer is `answered: false`, and the
 * ingress refuses as it did when it held no App itself; a GitHub failure is thrown, and the
 * transport hands its code back to the ingress, which fails closed on it.
 */
export class GithubLookupService {
  constructor(
    private readonly membership: OrgMembershipPort | null,
    private readonly permissions: RepositoryPermissionLookup | null,
  ) {}

  async orgMembership(
    request: RequestOf<typeof GithubOrgMembershipLookup>,
  ): Promise<OrgMembershipLookupResponse> {
    if (!this.membership) return { answered: false };
    const member = await this.membership.isMember(request.org, request.login, request.repository);
    return { answered: true, member };
  }

  async repositoryPermission(
    request: RequestOf<typeof GithubRepositoryPermissionLookup>,
  ): Promise<RepositoryPermissionLookupResponse> {
    if (!this.permissions) return { answered: false };
    const permission = await this.permissions.permissionOf(request.login, request.repository);
    return { answered: true, permission };
  }
}

/**
 * The lookups as the GitHub App of `config`, or none without it. The development token is not
 * used: these answers decide who may address Caravel, which only the App's view settles.
 */
export function githubLookupService(config: IntegrationsConfig): GithubLookupService {
  const adapters = new IntegrationAdapters(config);
  if (!adapters.hosting.app) return new GithubLookupService(null, null);
  return new GithubLookupService(adapters.orgMembership(), adapters.repositoryAccess());
}
