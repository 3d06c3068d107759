import { AppError, isAppError } from '@caravel/errors';
import type { RepositoryPermissionLookup } from '@caravel/integrations';
import type { Caller } from './session.types.js';

/** A thread as the policy reads it: its id and its repository, if it has one. */
export interface ThreadPlace {
  id: string;
  repositoryOwner: string | null;
  repositoryName: string | null;
}

/** Who took part in a thread with no repository: its owner, and a handle's GitHub login. */
export interface ThreadPeople {
  /** The thread's owner (its first requester) as `source:externalId`; null when none. */
  ownerOf(threadId: string): Promise<string | null>;
  /** The GitHub login the identity map links to `source:externalId`; null when none. */
  githubLoginOf(handle: string): Promise<string | null>;
}

/** Injection token of the dashboard's {@link RepositoryPermissionLookup} (null: no GitHub credential). */
export const REPOSITORY_PERMISSIONS = Symbol('caravel.dashboard.repository-permissions');

/**
 * Who may see a thread. A member (by sign-in or an API token) sees it only when GitHub gives
 * their login a role on the thread's repository (the App asks `collaborators/{login}/permission`;
 * `none`, or a repository the App cannot see, hides it). A thread with no repository (a Slack
 * question without a checkout) is seen by the person who asked for it (its owner, directly or
 * through the identity map). Admins, the machine token and an open read (nothing configured)
 * see everything, and so does everyone when no GitHub credential is configured (nobody can be
 * asked). When GitHub cannot answer, a member is refused with a 503: never shown on a guess.
 */
export class ThreadAccessPolicy {
  constructor(
    private readonly permissions: RepositoryPermissionLookup | null,
    private readonly people: ThreadPeople,
  ) {}

  /** Whether the caller sees every thread unchecked (admin, machine, open read, no GitHub). */
  seesAll(caller: Caller | null): boolean {
    return this.checkedLogin(caller) === null;
  }

  async mayRead(caller: Caller | null, thread: ThreadPlace): Promise<boolean> {
    const login = this.checkedLogin(caller);
    if (login === null) return true;
    if (thread.repositoryOwner && thread.repositoryName) {
      return this.sees(login, { owner: thread.repositoryOwner, name: thread.repositoryName });
    }
    return this.askedFor(login, thread.id);
  }

  /** The same rule for a repository's own pages (its review ledgers). */
  async mayReadRepository(
    caller: Caller | null,
    repository: { owner: string; name: string },
  ): Promise<boolean> {
    const login = this.checkedLogin(caller);
    return login === null ? true : this.sees(login, repository);
  }

  /** The member's login when they are to be checked; null when the caller sees everything. */
  private checkedLogin(caller: Caller | null): string | null {
    if (!this.permissions || caller?.kind !== 'person') return null;
    return caller.session.role === 'admin' ? null : caller.session.login;
  }

  private async sees(login: string, repository: { owner: string; name: string }): Promise<boolean> {
    const slug = `${repository.owner}/${repository.name}`;
    try {
      return (await this.permissions!.permissionOf(login, repository)) !== 'none';
    } catch (error) {
      if (isAppError(error) && error.code === 'NOT_FOUND') return false;
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `GitHub could not be asked whether ${login} may see ${slug} (${error instanceof Error ? error.message : String(error)}); try again in a minute`,
      );
    }
  }

  private async askedFor(login: string, threadId: string): Promise<boolean> {
    const owner = await this.people.ownerOf(threadId);
    if (!owner) return false;
    const wanted = login.toLowerCase();
    if (owner.toLowerCase() === `github:${wanted}`) return true;
    return (await this.people.githubLoginOf(owner))?.toLowerCase() === wanted;
  }
}
