import type { GitHubRepository } from './github-client.js';
import type { RepositoryPermission } from './github-repository-access.js';

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
  private readonly answers = new Map<string, { permission: RepositoryPermission; until: number }>();
  private readonly maxAnswers: number;

  constructor(
    private readonly lookup: RepositoryPermissionLookup,
    private readonly now: () => number = Date.now,
    options: { maxAnswers?: number } = {},
  ) {
    this.maxAnswers = options.maxAnswers ?? 10_000;
  }

  async permissionOf(login: string, repository: GitHubRepository): Promise<RepositoryPermission> {
    const key = `${login}|${repository.owner}/${repository.name}`.toLowerCase();
    const now = this.now();
    const kept = this.answers.get(key);
    if (kept && kept.until > now) return kept.permission;
    const permission = await this.lookup.permissionOf(login, repository);
    this.answers.delete(key);
    if (this.answers.size >= this.maxAnswers) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
    this.answers.set(key, { permission, until: now + REPOSITORY_PERMISSION_TTL_MS });
    return permission;
  }
}
