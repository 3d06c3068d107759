import { GitHubApp } from './github-app.js';
import type { GitHubRepository } from './github-client.js';
import type { GitHubConfig } from '../adapters/integrations.config.js';

/** A repository as a trigger names it: owner/name, and where to clone from when not the SCM. */
export interface HostedRepositoryRef extends GitHubRepository {
  cloneUrl?: string;
}

/**
 * Which repositories live on the configured GitHub, and how to reach them. A repository is
 * GitHub-hosted when the App is configured and its clone URL is absent or on the web root;
 * anything else (a local path, another git URL) is a plain git repository.
 */
export class GitHubHosting {
  /** The App, or null when the configuration has none. */
  readonly app: GitHubApp | null;
  readonly webUrl: URL;
  readonly apiUrl: string;

  constructor(config: GitHubConfig, now?: () => number) {
    this.webUrl = new URL(config.webUrl);
    this.apiUrl = config.apiUrl.replace(/\/$/, '');
    this.app = config.app
      ? new GitHubApp({
          appId: config.app.id,
          privateKey: config.app.privateKey,
          baseUrl: this.apiUrl,
          ...(now ? { now } : {}),
        })
      : null;
  }

  /** Whether the repository is on this GitHub (ignoring whether the App is configured). */
  isOnHost(repository: HostedRepositoryRef): boolean {
    if (!repository.cloneUrl) return true;
    try {
      const url = new URL(repository.cloneUrl);
      return url.host === this.webUrl.host && url.protocol === this.webUrl.protocol;
    } catch {
      return false;
    }
  }

  /** Whether Caravel works on the repository as a GitHub repository (App set and on host). */
  hosts(repository: HostedRepositoryRef | undefined): boolean {
    return this.app !== null && repository !== undefined && this.isOnHost(repository);
  }

  /** The HTTPS (or fake's HTTP) git URL of a repository on this GitHub. */
  cloneUrl(repository: GitHubRepository): string {
    const base = this.webUrl.href.replace(/\/$/, '');
    return `${base}/${repository.owner}/${repository.name}.git`;
  }
}
