import {
  GitHubHosting,
  notConfigured,
  parseRepository,
  type GitHubConfig,
} from '@caravel/integrations';
import {
  EgressProxy,
  RefreshingTokenSource,
  normalizeRepository,
  type GitHubEndpoints,
  type TokenSource,
} from '@caravel/sandbox';

/**
 * Git from the broker's host to the configured GitHub, through the same credential proxy a
 * sandbox uses: git talks plain HTTP to a per-operation `EgressProxy` on 127.0.0.1, which adds
 * the App's installation token (scoped to the one repository, refreshed before it expires) and
 * opens the real connection to `GITHUB_HOST`. The token is never on a command line, in an
 * environment, or in any git config: only in the proxy's outgoing Authorization header.
 */
export class GitHubGit {
  private readonly sources = new Map<string, RefreshingTokenSource>();

  constructor(readonly hosting: GitHubHosting) {}

  static of(config: GitHubConfig): GitHubGit {
    return new GitHubGit(new GitHubHosting(config));
  }

  /** The `owner/name` of a remote URL on the configured GitHub, when the App can act on it. */
  repositoryOf(remote: string): string | null {
    if (!this.hosting.app) return null;
    const base = this.hosting.webUrl.href.replace(/\/$/, '');
    if (!remote.startsWith(`${base}/`)) return null;
    const { owner, name } = parseRepository(remote.slice(base.length + 1));
    return `${owner}/${name}`;
  }

  /**
   * Runs `git` (given the `-c` options that route it through the proxy) for `repository`, with a
   * proxy listening only for the duration of the call.
   */
  async through<T>(repository: string, git: (proxyArgs: string[]) => Promise<T>): Promise<T> {
    const web = this.hosting.webUrl;
    const proxy = new EgressProxy({
      github: this.endpoints(),
      repository,
      allowlist: [],
      // The broker's own push from the sandbox's mirror; a sandbox's proxy never pushes.
      allowPush: true,
      tokenSource: this.tokenSource(repository),
    });
    const proxyUrl = await proxy.listen({ port: 0 });
    try {
      return await git([
        '-c',
        `http.proxy=${proxyUrl}`,
        // Credentials can only be added to requests the proxy can read: git speaks HTTP to it.
        '-c',
        `url.http://${web.host}/.insteadOf=https://${web.host}/`,
      ]);
    } finally {
      await proxy.close();
    }
  }

  /** The configured GitHub as a proxy names it (the hosts) and reaches it (the upstreams). */
  endpoints(): GitHubEndpoints {
    const web = this.hosting.webUrl;
    return {
      gitHost: web.host,
      apiHost: new URL(this.hosting.apiUrl).host,
      gitUpstream: web.origin,
      apiUpstream: this.hosting.apiUrl,
    };
  }

  /**
   * The credential for `repository`, for a sandbox's proxy: the App's installation token, or,
   * without the App, a source whose refusal (502 with the reason) tells the agent what is missing.
   */
  sandboxTokenSource(repository: string): TokenSource {
    if (this.hosting.app) return this.tokenSource(repository);
    const missing = notConfigured('GitHub', 'GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY');
    return { getToken: () => Promise.reject(missing) };
  }

  /**
   * Drops the token kept for `repository`: the next call mints one, with what the App's
   * installation grants then (a token keeps the permissions it was minted with).
   */
  forget(repository: string): void {
    this.sources.delete(normalizeRepository(repository));
  }

  private tokenSource(repository: string): RefreshingTokenSource {
    const key = normalizeRepository(repository);
    const app = this.hosting.app;
    if (!app) throw notConfigured('GitHub', 'GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY');
    let source = this.sources.get(key);
    if (!source) {
      source = new RefreshingTokenSource({ repository, mint: app.minter() });
      this.sources.set(key, source);
    }
    return source;
  }
}
