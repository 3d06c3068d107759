import { isAppError } from '@caravel/errors';
import { notConfigured } from '../http/service-errors.js';
import type { StoredToken, TokenAddress } from '../crypto/user-token-vault.js';
import type { GitHubRepository, GitHubTokenProvider } from './github-client.js';

/** Where user tokens are read from (the encrypted vault). */
export interface UserTokenReader {
  read(address: TokenAddress): Promise<StoredToken | null>;
}

/** Where installation tokens come from (a GitHub App). */
export interface InstallationTokenSource {
  token(repository: GitHubRepository): Promise<string>;
}

/** A resolved credential and whose it is. */
export interface ResolvedGitHubToken {
  token: string;
  /**
   * `user`: the person's own OAuth token (actions are attributed to them); `app`: the App's
   * installation token; `development`: the static development token (no App configured).
   */
  source: 'user' | 'app' | 'development';
}

/** Settings of {@link GitHubCredentials}. */
export interface GitHubCredentialsOptions {
  users?: UserTokenReader;
  app?: InstallationTokenSource;
  /** Development fallback only: a static token used when there is no App (and no user token). */
  developmentToken?: string;
  /** Milliseconds since the epoch; an expired user token is not used. */
  now?: () => number;
}

/**
 * Resolves the GitHub token to act with, user first: the triggering person's own OAuth token
 * (decrypted from the vault, unexpired), else the App's installation token for the repository,
 * else (development only, no App) the static development token.
 * A user token that cannot be opened (a retired key) is skipped for the App, never fatal.
 * Without either, a clean `PRECONDITION_FAILED` says what to configure.
 */
export class GitHubCredentials {
  private readonly now: () => number;

  constructor(private readonly options: GitHubCredentialsOptions) {
    this.now = options.now ?? Date.now;
  }

  async resolve(repository: GitHubRepository, login?: string): Promise<ResolvedGitHubToken> {
    const user = login ? await this.userToken(login) : null;
    if (user) return { token: user, source: 'user' };
    if (this.options.app) return { token: await this.options.app.token(repository), source: 'app' };
    const fallback = this.options.developmentToken;
    if (fallback) return { token: fallback, source: 'development' };
    throw notConfigured(
      'GitHub',
      'GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (or connect your account)',
    );
  }

  /** A token provider for the Octokit adapters, acting for `login` when they have a token. */
  providerFor(login?: string): GitHubTokenProvider {
    return async (repository) => (await this.resolve(repository, login)).token;
  }

  private async userToken(login: string): Promise<string | null> {
    const users = this.options.users;
    if (!users) return null;
    try {
      const stored = await users.read({
        provider: 'github',
        subject: login.toLowerCase(),
        kind: 'access',
      });
      if (!stored) return null;
      return stored.expiresAt && stored.expiresAt.getTime() <= this.now() ? null : stored.token;
    } catch (error) {
      if (isAppError(error)) return null;
      throw error;
    }
  }
}
