import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { AppError } from '@caravel/errors';
import type { ScopedToken, TokenMinter, TokenScope } from '@caravel/sandbox';
import { codeOctokitError, silentOctokitLog, type GitHubRepository } from './github-client.js';
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
 * A GitHub App: installation tokens scoped to one repository each (or to reading one
 * organization's members), minted from an RS256 App JWT.
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
    const octokit = await this.asApp();
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
    return this.cached(slugOf(repository).toLowerCase(), () => this.mint(repository));
  }

  /**
   * A cached token of the App's installation on organization `org` that may only read the
   * organization's members (`permissions: { members: 'read' }`, which the installation must
   * grant): who belongs to it, asked without naming any repository.
   */
  async orgMembersToken(org: string): Promise<string> {
    return this.cached(`org:${org.toLowerCase()}`, () => this.mintOrgMembers(org));
  }

  private async mintOrgMembers(org: string): Promise<ScopedToken> {
    const octokit = await this.asApp();
    try {
      const installation = await octokit.rest.apps.getOrgInstallation({ org });
      const minted = await octokit.rest.apps.createInstallationAccessToken({
        installation_id: installation.data.id,
        permissions: { members: 'read' },
      });
      return { token: minted.data.token, expiresAt: new Date(minted.data.expires_at) };
    } catch (error) {
      throw codeOctokitError(error, `mint a members token for the organization ${org}`);
    }
  }

  /** The token kept under `key`, minted by `mint` when absent or near its expiry, once at a time. */
  private async cached(key: string, mint: () => Promise<ScopedToken>): Promise<string> {
    const kept = this.cache.get(key);
    const margin = this.options.refreshMarginMs ?? 5 * 60_000;
    if (kept && kept.expiresAt.getTime() - this.now() > margin) return kept.token;
    let pending = this.minting.get(key);
    if (!pending) {
      pending = mint().finally(() => this.minting.delete(key));
      this.minting.set(key, pending);
    }
    const minted = await pending;
    this.cache.set(key, minted);
    return minted.token;
  }

  /** Octokit authenticated as the App itself (its JWT). */
  private async asApp() {
    const Octokit = await loadOctokit();
    return new Octokit({
      auth: appJwt(this.options.appId, this.key, this.now()),
      baseUrl: this.options.baseUrl,
      log: silentOctokitLog,
      request: { retries: 0 },
    });
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
