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
 * `GithubRepositoryPermissionLookup`). Without a credential to ask with the answer is
 * `answered: false`, and the ingress refuses as it did when it held none itself; a GitHub
 * failure is thrown, and the transport hands its code back to the ingress, which fails closed.
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
 * The lookups with the credentials of `config`, as the ingress made them when it held them:
 * membership as the App alone; permissions as the App, or in development (no App) with
 * `GITHUB_TOKEN`, which the embedded host's ingress asked with too.
 */
export function githubLookupService(config: IntegrationsConfig): GithubLookupService {
  const adapters = new IntegrationAdapters(config);
  return new GithubLookupService(adapters.orgMembership(), adapters.repositoryAccess());
}
