import type { GithubActorCheck } from '../events/webhook-decision.js';
import { isGithubAppUnset } from '../ingress.errors.js';

/** Whether `login` belongs to the organization `org` (asked for a repository the org owns). */
export interface OrgMembershipCheck {
  isMember(
    org: string,
    login: string,
    repository: { owner: string; name: string },
  ): Promise<boolean>;
}

/** Associations that already say the author belongs to the repository's owner. */
const OWNER_SIDE = new Set(['OWNER', 'MEMBER']);

/**
 * `PUBLIC_REPO_ORG_GATE`: on a public repository anyone can comment, so only members of the owning
 * organization (or bots, which only the organization can install) may address Caravel. Private
 * repositories skip the gate. `author_association` OWNER/MEMBER from the signed payload settles
 * it; otherwise GitHub is asked (by dispatch, which holds the App), and when it cannot be asked
 * (no App) the gate stays shut; a failed question fails the request. On a personal account's
 * repository the owner and its collaborators pass.
 */
export class PublicRepoGate {
  constructor(
    private readonly enabled: boolean,
    private readonly membership: OrgMembershipCheck,
  ) {}

  /**
   * Whether the payload alone lets the actor address Caravel (the gate is off, the repository
   * private, the actor a bot or on the owner's side): {@link refusal} would answer null.
   */
  passes(check: GithubActorCheck): boolean {
    return this.passesOnThePayload(check);
  }

  /** Null when the actor may address Caravel; otherwise why not (said in the webhook answer). */
  async refusal(check: GithubActorCheck): Promise<string | null> {
    const { repository, login } = check;
    if (this.passesOnThePayload(check)) return null;
    const slug = `${repository.owner}/${repository.name}`;
    if (!repository.ownerIsOrganization) {
      const own = login.toLowerCase() === repository.owner.toLowerCase();
      return own || check.association === 'COLLABORATOR'
        ? null
        : `on public repository ${slug}, @${login} is neither its owner nor a collaborator`;
    }
    let member: boolean;
    try {
      member = await this.membership.isMember(repository.owner, login, repository);
    } catch (error) {
      if (!isGithubAppUnset(error)) throw error;
      return `on public repository ${slug}, the membership of @${login} in ${repository.owner} cannot be checked (GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY unset)`;
    }
    return member
      ? null
      : `on public repository ${slug}, @${login} is not a member of ${repository.owner}`;
  }

  /** Whether {@link refusal} would ask GitHub about this actor (a call, not a look at the payload). */
  asksGithub(check: GithubActorCheck): boolean {
    return !this.passesOnThePayload(check) && check.repository.ownerIsOrganization;
  }

  /** The gate is off, the repository private, the actor a bot or on the owner's side. */
  private passesOnThePayload(check: GithubActorCheck): boolean {
    if (!this.enabled || check.repository.private || check.userType === 'Bot') return true;
    return check.association !== undefined && OWNER_SIDE.has(check.association);
  }
}
