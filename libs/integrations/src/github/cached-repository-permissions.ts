import type { GitHubRepository } from './github-client.js';
import type { RepositoryPermission } from './github-repository-access.js';
import { KeptAnswers } from './kept-answers.js';

/** How long an answer of GitHub is kept per login and repository. */
export const REPOSITORY_PERMISSION_TTL_MS = 5 * 60_000;

/** What a GitHub login may do on a repository ({@link GitHubRepositoryAccess} answers it). */
export interface RepositoryPermissionLookup {
  permissionOf(login: string, repository: GitHubRepository): Promise<RepositoryPermission>;
}

/**
 * A {@link RepositoryPermissionLookup} that keeps each answer {@link REPOSITORY_PERMISSION_TTL_MS}
 * per login and repository (compared case-insensitively, as GitHub names are), so a page that
 * lists fifty threads of one repository asks GitHub once. A failure is not kept. Past
 * `maxAnswers` the oldest answer goes first.
 */
export class CachedRepositoryPermissions implements RepositoryPermissionLookup {
  private readonly answers: KeptAnswers<RepositoryPermission>;

  constructor(
    private readonly lookup: RepositoryPermissionLookup,
    now: () => number = Date.now,
    options: { maxAnswers?: number } = {},
  ) {
    this.answers = new KeptAnswers(REPOSITORY_PERMISSION_TTL_MS, now, options.maxAnswers);
  }

  async permissionOf(login: string, repository: GitHubRepository): Promise<RepositoryPermission> {
    const key = `${login}|${repository.owner}/${repository.name}`.toLowerCase();
    return this.answers.get(key, () => this.lookup.permissionOf(login, repository));
  }
}
