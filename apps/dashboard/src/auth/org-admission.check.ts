import type { OrgStanding } from '@caravel/integrations';
import type { Role } from './session.types.js';

/** A login's standing in an organisation, as GitHub answers it now (null: not a member). */
export interface OrgStandingLookup {
  standingOf(org: string, login: string): Promise<OrgStanding | null>;
}

/**
 * GitHub's word, at each request, on people the dashboard let in through an organisation of
 * `DASHBOARD_ALLOWED_ORGS`: a session or personal token lasts longer than a membership, and
 * without this someone removed from the organisation kept their session until it expired and
 * their API tokens for up to a year. Asked as the App (answers kept a few minutes: see
 * `GitHubOrgStandings`); a failure to ask is thrown, so the request fails closed. Without the
 * App nobody can be asked, and the sign-in's answer stands (docs/dashboard.md).
 */
export class OrgAdmissionCheck {
  constructor(private readonly standings: OrgStandingLookup | null) {}

  /** Whether GitHub can be asked at all (the App is configured). */
  get asks(): boolean {
    return this.standings !== null;
  }

  /**
   * The role of a session let in through `org`: the one GitHub gives `login` there now (its
   * owners are admins), or null once they are no longer an active member. Without the App,
   * `signedInAs`.
   */
  async roleIn(org: string, login: string, signedInAs: Role): Promise<Role | null> {
    if (!this.standings) return signedInAs;
    return roleOf(await this.standings.standingOf(org, login));
  }

  /** Whether `login` is an active member of one of `orgs` (asked in order); true without the App. */
  async activeInAny(orgs: readonly string[], login: string): Promise<boolean> {
    if (!this.standings) return orgs.length > 0;
    for (const org of orgs) {
      if (roleOf(await this.standings.standingOf(org, login))) return true;
    }
    return false;
  }
}

function roleOf(standing: OrgStanding | null): Role | null {
  if (standing?.state !== 'active') return null;
  return standing.role === 'admin' ? 'admin' : 'member';
}
