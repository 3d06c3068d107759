import type { GitHubApi, GitHubRepository } from './github-client.js';

/**
 * Organization membership on GitHub (`GET /orgs/{org}/members/{username}`: 204 a member, 404
 * not), asked with the installation token of a repository the organization owns, so the App
 * needs the organization's "Members: read" permission. Any other failure is a coded error.
 */
export class GitHubOrgMembership {
  constructor(private readonly api: GitHubApi) {}

  async isMember(org: string, login: string, repository: GitHubRepository): Promise<boolean> {
    return this.api.call(
      repository,
      `check whether ${login} is a member of ${org}`,
      async (octokit) => {
        try {
          const answer = await octokit.rest.orgs.checkMembershipForUser({ org, username: login });
          return (answer.status as number) === 204;
        } catch (error) {
          if ((error as { status?: number }).status === 404) return false;
          throw error;
        }
      },
    );
  }
}
