import { GithubOrgMembershipLookup, GithubRepositoryPermissionLookup } from '@caravel/contracts';
import type { IntegrationAdapters } from '@caravel/integrations';
import type { Bus, Subscription } from '@caravel/messaging';

/**
 * What dispatch does for the ingress in production, for the ingress's own medium tests (a service
 * does not import another): answers its GitHub lookups on `bus` as the App of `adapters`.
 */
export async function serveGithubLookups(
  bus: Bus,
  adapters: IntegrationAdapters,
): Promise<Subscription> {
  const membership = adapters.orgMembership();
  const access = adapters.repositoryAccess();
  if (!membership || !access) throw new Error('serveGithubLookups needs the App');
  const served = await Promise.all([
    bus.serve(GithubOrgMembershipLookup.pattern, async (raw) => {
      const { org, login, repository } = GithubOrgMembershipLookup.parseRequest(raw);
      return { answered: true, member: await membership.isMember(org, login, repository) };
    }),
    bus.serve(GithubRepositoryPermissionLookup.pattern, async (raw) => {
      const { login, repository } = GithubRepositoryPermissionLookup.parseRequest(raw);
      return { answered: true, permission: await access.permissionOf(login, repository) };
    }),
  ]);
  return { drain: async () => void (await Promise.all(served.map((s) => s.drain()))) };
}
