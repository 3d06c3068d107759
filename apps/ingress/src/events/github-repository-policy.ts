/** `owner/name` and the repository's visibility, as a GitHub payload tells them. */
export interface GithubRepositoryFacts {
  owner: string;
  name: string;
  /** True for repositories owned by an organization (not a personal account). */
  ownerIsOrganization: boolean;
  private: boolean;
}

/**
 * Which GitHub repositories Caravel answers at all: `ALLOWED_GITHUB_ORGS` (owners) and
 * `ALLOWED_GITHUB_REPOS` (`owner/name`), both case-insensitive. Open when both are empty; a
 * repository passes when either list names it.
 */
export class GithubRepositoryPolicy {
  private readonly orgs: ReadonlySet<string>;
  private readonly repos: ReadonlySet<string>;

  constructor(orgs: readonly string[], repos: readonly string[]) {
    this.orgs = new Set(orgs.map((org) => org.toLowerCase()));
    this.repos = new Set(repos.map((repo) => repo.toLowerCase()));
  }

  /** Null when the repository may use Caravel; otherwise why not. */
  refusal(repository: { owner: string; name: string }): string | null {
    if (this.orgs.size === 0 && this.repos.size === 0) return null;
    const owner = repository.owner.toLowerCase();
    const slug = `${owner}/${repository.name.toLowerCase()}`;
    if (this.orgs.has(owner) || this.repos.has(slug)) return null;
    return `repository ${repository.owner}/${repository.name} is not in ALLOWED_GITHUB_ORGS or ALLOWED_GITHUB_REPOS`;
  }
}

/**
 * `AUTO_REVIEW_REPOS`: the repositories whose new and ready-for-review pull requests get a review
 * request without anyone asking (`owner/name`, or `owner/*` for all of an owner's). Empty: off.
 */
export class AutoReviewRepositories {
  private readonly entries: ReadonlySet<string>;

  constructor(entries: readonly string[]) {
    this.entries = new Set(entries.map((entry) => entry.toLowerCase()));
  }

  includes(repository: { owner: string; name: string }): boolean {
    const owner = repository.owner.toLowerCase();
    return (
      this.entries.has(`${owner}/*`) ||
      this.entries.has(`${owner}/${repository.name.toLowerCase()}`)
    );
  }
}
