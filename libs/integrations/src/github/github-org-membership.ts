import type { GitHubApp } from './github-app.js';
import type { GitHubApi, GitHubRepository } from './github-client.js';
import { KeptAnswers } from './kept-answers.js';

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

/** A login's membership of an organization as GitHub gives it. */
export interface OrgStanding {
  /** `pending`: invited, not yet joined. */
  state: 'active' | 'pending';
  /** `admin` for the organization's owners. */
  role: 'admin' | 'member';
}

/** How long an answer about a login's membership of an organization is kept, unless told. */
export const ORG_STANDING_TTL_MS = 5 * 60_000;

/**
 * A login's membership of an organization (`GET /orgs/{org}/memberships/{username}`), asked with
 * the App's members-only token of its installation on that organization
 * (`GitHubApp.orgMembersToken`), so no repository need be named; the App needs the
 * organization's "Members: read" permission. Null when GitHub knows no such membership (404, or
 * a billing manager, who is not a member). Answers are kept `keepMs` ({@link ORG_STANDING_TTL_MS}
 * unless told) per organization and login (a failure is not kept); any other failure is a coded
 * error.
 */
export class GitHubOrgStandings {
  private readonly answers: KeptAnswers<OrgStanding | null>;

  constructor(
    private readonly api: GitHubApi,
    private readonly app: Pick<GitHubApp, 'orgMembersToken'>,
    options: { keepMs?: number; now?: () => number } = {},
  ) {
    this.answers = new KeptAnswers(options.keepMs ?? ORG_STANDING_TTL_MS, options.now ?? Date.now);
  }

  async standingOf(org: string, login: string): Promise<OrgStanding | null> {
    const key = `${org}|${login}`.toLowerCase();
    return this.answers.get(key, () => this.ask(org, login));
  }

  private ask(org: string, login: string): Promise<OrgStanding | null> {
    return this.api.callWith(
      () => this.app.orgMembersToken(org),
      `read the membership of ${login} in ${org}`,
      async (octokit) => {
        try {
          const { data } = await octokit.rest.orgs.getMembershipForUser({ org, username: login });
          if (data.role !== 'admin' && data.role !== 'member') return null;
          return { state: data.state === 'active' ? 'active' : 'pending', role: data.role };
        } catch (error) {
          if ((error as { status?: number }).status === 404) return null;
          throw error;
        }
      },
    );
  }
}
