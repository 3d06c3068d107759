import type { GithubActorFacts } from '@caravel/contracts';
import { KeptAnswers } from './kept-answers.js';

/** Whether `login` belongs to the organization `org` (asked for a repository the org owns). */
export interface OrgMembershipCheck {
  isMember(
    org: string,
    login: string,
    repository: { owner: string; name: string },
  ): Promise<boolean>;
}

/** How long the gate keeps GitHub's answer about a login's membership, unless told. */
export const ORG_MEMBERSHIP_TTL_MS = 5 * 60_000;

/**
 * An {@link OrgMembershipCheck} that keeps each answer, yes or no, `keepMs` per organization and
 * login (compared case-insensitively, as GitHub names are), so a stranger commenting again and
 * again on a public repository costs one question to GitHub per `keepMs`. A failure is not kept:
 * the next question asks again. The price: someone who joins (or leaves) the organization is
 * answered as before for up to `keepMs`.
 */
export class CachedOrgMembership implements OrgMembershipCheck {
  private readonly answers: KeptAnswers<boolean>;

  constructor(
    private readonly membership: OrgMembershipCheck,
    options: { keepMs?: number; now?: () => number; maxAnswers?: number } = {},
  ) {
    this.answers = new KeptAnswers(
      options.keepMs ?? ORG_MEMBERSHIP_TTL_MS,
      options.now ?? Date.now,
      options.maxAnswers,
    );
  }

  isMember(
    org: string,
    login: string,
    repository: { owner: string; name: string },
  ): Promise<boolean> {
    // One installation per organization: any of its repositories asks the same question.
    const key = `${org}|${login}`.toLowerCase();
    return this.answers.get(key, () => this.membership.isMember(org, login, repository));
  }
}

/** Associations that already say the author belongs to the repository's owner. */
const OWNER_SIDE = new Set(['OWNER', 'MEMBER']);

/**
 * `PUBLIC_REPO_ORG_GATE`: on a public repository anyone can comment, so only members of the owning
 * organization (or bots, which only the organization can install) may address Caravel. Private
 * repositories skip the gate. `author_association` OWNER/MEMBER from the signed payload settles
 * it; otherwise GitHub is asked as the App (`membership`), and without an App (`null`) the gate
 * stays shut. A failed question is thrown: the caller tries again later (a redelivery), it does
 * not decide. On a personal account's repository the owner and its collaborators pass.
 */
export class PublicRepoGate {
  constructor(
    private readonly enabled: boolean,
    private readonly membership: OrgMembershipCheck | null,
  ) {}

  /**
   * Whether the facts alone let the actor address Caravel (the gate is off, the repository
   * private, the actor a bot or on the owner's side): {@link refusal} would answer null unasked.
   */
  passes(check: GithubActorFacts): boolean {
    if (!this.enabled || check.repository.private || check.userType === 'Bot') return true;
    return check.association !== undefined && OWNER_SIDE.has(check.association);
  }

  /** Null when the actor may address Caravel; otherwise why not (for the log, never the actor). */
  async refusal(check: GithubActorFacts): Promise<string | null> {
    const { repository, login } = check;
    if (this.passes(check)) return null;
    const slug = `${repository.owner}/${repository.name}`;
    if (!repository.ownerIsOrganization) {
      const own = login.toLowerCase() === repository.owner.toLowerCase();
      return own || check.association === 'COLLABORATOR'
        ? null
        : `on public repository ${slug}, @${login} is neither its owner nor a collaborator`;
    }
    if (!this.membership) {
      return `on public repository ${slug}, the membership of @${login} in ${repository.owner} cannot be checked (GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY unset)`;
    }
    const member = await this.membership.isMember(repository.owner, login, repository);
    return member
      ? null
      : `on public repository ${slug}, @${login} is not a member of ${repository.owner}`;
  }
}

/**
 * The gate as a service holds it (dispatch's trigger intake, the reviewer's review requests):
 * asked as the GitHub App (`membership`, null without one), each answer kept `cacheMs` (0: asked
 * every time), so a stranger who comments or pushes again and again costs one question per period.
 */
export function publicRepoGateOf(
  access: { readonly publicRepoOrgGate: boolean; readonly publicRepoGateCacheMs: number },
  membership: OrgMembershipCheck | null,
  now: () => number = Date.now,
): PublicRepoGate {
  const keepMs = access.publicRepoGateCacheMs;
  return new PublicRepoGate(
    access.publicRepoOrgGate,
    membership && keepMs > 0 ? new CachedOrgMembership(membership, { keepMs, now }) : membership,
  );
}
