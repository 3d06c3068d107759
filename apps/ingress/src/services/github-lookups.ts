import {
  GITHUB_LOOKUP_SUBJECT_ID,
  GithubOrgMembershipLookup,
  GithubRepositoryPermissionLookup,
} from '@caravel/contracts';
import { AppError, isAppError } from '@caravel/errors';
import type { RepositoryPermission, RepositoryPermissionLookup } from '@caravel/integrations';
import type { Bus } from '@caravel/messaging';
import { githubAppUnset } from '../ingress.errors.js';
import type { OrgMembershipCheck } from './public-repo-gate.js';

/**
 * How long a lookup waits for dispatch. A webhook is answered after it, so it stays well under
 * the senders' own timeouts (GitHub's is 10 s); past it the request fails closed (see {@link ask}).
 */
export const GITHUB_LOOKUP_TIMEOUT_MS = 5_000;

/** Injection token of the {@link OrgMembershipCheck} (a {@link DispatchGithubLookups}). */
export const ORG_MEMBERSHIP = Symbol('caravel.ingress.org-membership');

/** Injection token of the uncached {@link RepositoryPermissionLookup} (the same). */
export const REPOSITORY_PERMISSIONS = Symbol('caravel.ingress.repository-permissions');

type Requester = Pick<Bus, 'request'>;

interface Repository {
  owner: string;
  name: string;
}

/** Only what the question needs of a repository (not where it is cloned from). */
function ownerAndName({ owner, name }: Repository): Repository {
  return { owner, name };
}

/**
 * Asks dispatch and validates its answer. No reply in time (dispatch down or slow) is answered
 * as a GitHub outage is, `DEPENDENCY_UNAVAILABLE` (503, `Retry-After`); the responder's coded
 * errors (GitHub's, as dispatch saw them) come through as they are.
 */
async function ask<R>(
  bus: Requester,
  definition: { subjectFor(id: string): string; parseResponse(raw: unknown): R },
  request: object,
  timeoutMs: number,
): Promise<R> {
  let answer: unknown;
  try {
    answer = await bus.request(definition.subjectFor(GITHUB_LOOKUP_SUBJECT_ID), request, {
      timeoutMs,
    });
  } catch (error) {
    if (!isAppError(error) || error.code !== 'TIMEOUT') throw error;
    throw new AppError('DEPENDENCY_UNAVAILABLE', `dispatch did not answer: ${error.message}`, {
      cause: error,
    });
  }
  return definition.parseResponse(answer);
}

/**
 * What the ingress asks about GitHub people, asked of dispatch (`GithubOrgMembershipLookup`,
 * `GithubRepositoryPermissionLookup`): the ingress faces the internet and holds no GitHub App
 * key. No answer (dispatch down, too slow, GitHub failing) is a coded error (see {@link ask}),
 * thrown as a GitHub failure was when the ingress asked itself; a repository the App cannot see
 * is the responder's `NOT_FOUND`; dispatch without an App is {@link githubAppUnset}. Nothing is
 * cached here: the permission's caller keeps answers (`CachedRepositoryPermissions`).
 */
export class DispatchGithubLookups implements OrgMembershipCheck, RepositoryPermissionLookup {
  constructor(
    private readonly bus: Requester,
    private readonly timeoutMs = GITHUB_LOOKUP_TIMEOUT_MS,
  ) {}

  async isMember(org: string, login: string, repository: Repository): Promise<boolean> {
    const answer = await ask(
      this.bus,
      GithubOrgMembershipLookup,
      { org, login, repository: ownerAndName(repository) },
      this.timeoutMs,
    );
    if (!answer.answered) throw githubAppUnset(`the membership of ${login} in ${org}`);
    return answer.member;
  }

  async permissionOf(login: string, repository: Repository): Promise<RepositoryPermission> {
    const answer = await ask(
      this.bus,
      GithubRepositoryPermissionLookup,
      { login, repository: ownerAndName(repository) },
      this.timeoutMs,
    );
    if (!answer.answered) {
      throw githubAppUnset(`the permission of ${login} on ${repository.owner}/${repository.name}`);
    }
    return answer.permission;
  }
}
