import type { RepositoryRef, TriggerSource } from '@caravel/contracts';
import { isAppError } from '@caravel/errors';
import type { RepositoryPermissionLookup } from './cached-repository-permissions.js';

/** `REPOSITORY_ACCESS_CHECK`: ask GitHub whether the person may see the repository, or not. */
export type RepositoryAccessCheck = 'github' | 'off';

/** Who would have Caravel work on a repository a person chose (not the place's), from where. */
export interface ChosenRepositoryRequest {
  source: TriggerSource;
  /** The source's id for the person (Slack user, Linear user, Jira account). */
  externalId: string;
  repository: RepositoryRef;
}

/** Why a chosen repository is not used: `reason` for the log and the record, `reply` for them. */
export interface AccessRefusal {
  reason: string;
  reply: string;
}

/** The person's GitHub login, from the identity map; null when they linked none. */
export interface GithubLoginLookup {
  githubLoginFor(actor: { source: TriggerSource; externalId: string }): Promise<string | null>;
}

const SOURCE_NAMES: Record<TriggerSource, string> = {
  github: 'GitHub',
  slack: 'Slack',
  linear: 'Linear',
  jira: 'Jira',
  confluence: 'Confluence',
  synthetic: 'Caravel',
};

const ASK_ADMIN =
  'or ask a Caravel admin to route this channel, team or project to the repository (REPOSITORY_ROUTES)';

/**
 * Whether a person may have Caravel work on a repository a person chose in a chat or tracker
 * thread (named with `repo:owner/name`, theirs or someone else's earlier in the thread) rather
 * than the one an admin chose for the place. Caravel works with the GitHub App's access, so
 * without this anyone in a channel could read any repository the App is on (a confused deputy).
 * The person's linked GitHub login must see the repository (any role but `none`); a person with
 * no linked login may use only the repositories an admin chose for the place, so this one is
 * refused. `permissions` is GitHub's answer as the App (`null`: no App, refused), best kept a few
 * minutes per person and repository (`CachedRepositoryPermissions`). A repository the App cannot
 * see is refused; any other failure to ask is thrown, so the caller asks again later.
 */
export class RepositoryAccessPolicy {
  constructor(
    private readonly check: RepositoryAccessCheck,
    private readonly logins: GithubLoginLookup,
    private readonly permissions: RepositoryPermissionLookup | null,
  ) {}

  /** Null when the person may use the repository; otherwise why not, and what to tell them. */
  async refusal(request: ChosenRepositoryRequest): Promise<AccessRefusal | null> {
    if (this.check === 'off') return null;
    const slug = `${request.repository.owner}/${request.repository.name}`;
    const who = `${request.source}:${request.externalId}`;
    const login = await this.logins.githubLoginFor(request);
    if (!login) {
      return {
        reason: `${who} asked for ${slug} but has no linked GitHub account`,
        reply: `I did not work on ${slug}: it was chosen with repo:, and your ${SOURCE_NAMES[request.source]} account is not linked to a GitHub account, so I cannot tell whether you may see that repository. Ask a Caravel admin to link your GitHub account to you in the dashboard (Settings → Identities), ${ASK_ADMIN}.`,
      };
    }
    if (!this.permissions) {
      return {
        reason: `${who} (@${login}) asked for ${slug}, but GitHub cannot be asked (no GitHub App configured)`,
        reply: `I did not work on ${slug}: I cannot check on GitHub whether @${login} may see it, because Caravel has no GitHub App configured. Ask a Caravel admin to configure it (GITHUB_APP_ID), ${ASK_ADMIN}.`,
      };
    }
    const permission = await this.permissions
      .permissionOf(login, request.repository)
      .catch((error: unknown) => {
        if (isAppError(error) && error.code === 'NOT_FOUND') return null;
        throw error;
      });
    if (permission === null) {
      return {
        reason: `${who} (@${login}) asked for ${slug}, which the GitHub App cannot see`,
        reply: `I did not work on ${slug}: Caravel's GitHub App cannot see it (it does not exist, or the App is not installed on it), so I cannot work on it for anyone. Check the name, or ask a Caravel admin to install the App on it.`,
      };
    }
    if (permission !== 'none') return null;
    return {
      reason: `${who} (@${login}) asked for ${slug}, which @${login} has no access to on GitHub`,
      reply: `I did not work on ${slug}: your GitHub account @${login} has no access to ${slug}. Ask its owners for access, ${ASK_ADMIN}.`,
    };
  }
}
