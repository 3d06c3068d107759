import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { AppError } from '@caravel/errors';
import type { ScopedToken, TokenMinter, TokenScope } from '@caravel/sandbox';
import { codeOctokitError, type GitHubRepository } from './github-client.js';
import { loadOctokit } from './octokit-loader.js';

/** Settings of {@link GitHubApp}. */
export interface GitHubAppOptions {
  appId: string;
  /** The App's private key (PEM). */
  privateKey: string | KeyObject;
  /** The REST API root. */
  baseUrl: string;
  /** Re-mint a cached token with less than this left (default 5 minutes; tokens last 1 hour). */
  refreshMarginMs?: number;
  /** Milliseconds since the epoch; injected so tests can move time. */
  now?: () => number;
}

/** The App JWT GitHub wants: RS256, issued a minute back (clock drift), valid nine minutes. */
export function appJwt(appId: string, privateKey: KeyObject, nowMs: number): string {
  const now = Math.floor(nowMs / 1000);
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({ iat: now - 60, exp: now + 540, iss: appId })}`;
  const signature = sign('sha256', Buffer.from(unsigned), privateKey).toString('base64url');
  return `${unsigned}.${signature}`;
}

const slugOf = (repository: GitHubRepository): string => `${repository.owner}/${repository.name}`;

/** `owner/name` as a repository, or a coded error for anything else. */
export function parseRepository(slug: string): GitHubRepository {
  const [owner, name, extra] = slug.replace(/\.git$/i, '').split('/');
  if (!owner || !name || extra !== undefined) {
    throw new AppError('BAD_REQUEST', `not a repository (owner/name): ${slug}`);
  }
  return { owner, name };
}

/**
 * A GitHub App: installation tokens scoped to one repository each, minted from an RS256 App JWT.
 * {@link mint} always mints (the sandbox proxy's `TokenMinter`, whose source caches), while
 * {@link token} caches per repository and re-mints shortly before expiry, one mint at a time.
 */
export class GitHubApp {
  private readonly key: KeyObject;
  private readonly now: () => number;
  private readonly cache = new Map<string, ScopedToken>();
  private readonly minting = new Map<string, Promise<ScopedToken>>();

  constructor(private readonly options: GitHubAppOptions) {
    this.key =
      typeof options.privateKey === 'string'
        ? parsePrivateKey(options.privateKey)
        : options.privateKey;
    this.now = options.now ?? Date.now;
  }

  /** Mints a fresh installation token for exactly this repository. */
  async mint(repository: GitHubRepository): Promise<ScopedToken> {
    const Octokit = await loadOctokit();
    const octokit = new Octokit({
      auth: appJwt(this.options.appId, this.key, this.now()),
      baseUrl: this.options.baseUrl,
      request: { retries: 0 },
    });
    const slug = slugOf(repository);
    try {
      const repo = { owner: repository.owner, repo: repository.name };
      const installation = await octokit.rest.apps.getRepoInstallation(repo);
      const minted = await octokit.rest.apps.createInstallationAccessToken({
        installation_id: installation.data.id,
        repositories: [repository.name],
      });
      return { token: minted.data.token, expiresAt: new Date(minted.data.expires_at) };
    } catch (error) {
      throw codeOctokitError(error, `mint an installation token for ${slug}`);
    }
  }

  /** A cached installation token for the repository, re-minted near its expiry. */
  async token(repository: GitHubRepository): Promise<string> {
    const slug = slugOf(repository).toLowerCase();
    const cached = this.cache.get(slug);
    const margin = this.options.refreshMarginMs ?? 5 * 60_000;
    if (cached && cached.expiresAt.getTime() - this.now() > margin) return cached.token;
    let pending = this.minting.get(slug);
    if (!pending) {
      pending = this.mint(repository).finally(() => this.minting.delete(slug));
      this.minting.set(slug, pending);
    }
    const minted = await pending;
    this.cache.set(slug, minted);
    return minted.token;
  }

  /** This App as the sandbox egress proxy's `TokenMinter`. */
  minter(): TokenMinter {
    return (scope: TokenScope) => this.mint(parseRepository(scope.repository));
  }
}

function parsePrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new AppError('CONFIG_INVALID', 'the GitHub App private key is not a valid PEM key');
  }
}
