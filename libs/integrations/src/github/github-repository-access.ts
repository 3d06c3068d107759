import type { GitHubApi, GitHubRepository } from './github-client.js';

/** A person's role on a repository, as GitHub names it; `none`: they cannot see it. */
export type RepositoryPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

const ROLES: ReadonlySet<string> = new Set(['admin', 'maintain', 'write', 'triage', 'read']);

/**
 * What a GitHub user may do on a repository (`GET /repos/{owner}/{repo}/collaborators/{username}
 * /permission`), asked with the App's installation token of that repository: the App needs the
 * repository's "Metadata: read", which every App has. `role_name` names the role (a custom one
 * falls back to `permission`, which GitHub maps onto admin, write, read or none); a user GitHub
 * does not know (404) is `none`. Any other failure is a coded error.
 */
export class GitHubRepositoryAccess {
  constructor(private readonly api: GitHubApi) {}

  async permissionOf(login: string, repository: GitHubRepository): Promise<RepositoryPermission> {
    return this.api.call(
      repository,
      `read the permission of ${login} on ${repository.owner}/${repository.name}`,
      async (octokit) => {
        try {
          const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({
            owner: repository.owner,
            repo: repository.name,
            username: login,
          });
          const role = data.role_name;
          if (ROLES.has(role)) return role as RepositoryPermission;
          return ROLES.has(data.permission) ? (data.permission as RepositoryPermission) : 'none';
        } catch (error) {
          if ((error as { status?: number }).status === 404) return 'none';
          throw error;
        }
      },
    );
  }
}
