import { AppError } from '@caravel/errors';

/** What a credential is for: one repository, `owner/name`. A token never covers more. */
export interface TokenScope {
  readonly repository: string;
}

/** A short-lived credential and when it stops working. */
export interface ScopedToken {
  readonly token: string;
  readonly expiresAt: Date;
}

/**
 * Where the egress proxy gets the real GitHub credential. Implementations live on the host (the
 * broker); nothing that implements this is ever reachable from inside a sandbox.
 */
export interface TokenSource {
  getToken(scope: TokenScope): Promise<ScopedToken>;
}

/** Mints a fresh token for exactly this scope (e.g. a GitHub App installation token). */
export type TokenMinter = (scope: TokenScope) => Promise<ScopedToken>;

/** Settings of `RefreshingTokenSource`. */
export interface RefreshingTokenSourceOptions {
  /** The only repository this source serves (`owner/name`, compared case-insensitively). */
  readonly repository: string;
  readonly mint: TokenMinter;
  /** Re-mint when the cached token has less than this left (default 5 minutes). */
  readonly refreshMarginMs?: number;
  /** Milliseconds since the epoch; injected so tests can move time. */
  readonly now?: () => number;
}

/** The default refresh margin: GitHub installation tokens last an hour. */
export const DEFAULT_REFRESH_MARGIN_MS = 5 * 60_000;

/** Canonical form of `owner/name` for comparisons (GitHub names are case-insensitive). */
export function normalizeRepository(repository: string): string {
  return repository
    .trim()
    .replace(/\.git$/i, '')
    .toLowerCase();
}

/**
 * An installation-style token source bound to one repository: it caches the minted token, mints
 * a new one once the cached one is within the margin of expiry (one mint at a time, however many
 * requests wait), and refuses any other repository, so a refresh can never widen the scope.
 */
export class RefreshingTokenSource implements TokenSource {
  private cached: ScopedToken | undefined;
  private minting: Promise<ScopedToken> | undefined;
  private readonly repository: string;
  private readonly margin: number;
  private readonly now: () => number;

  constructor(private readonly options: RefreshingTokenSourceOptions) {
    this.repository = normalizeRepository(options.repository);
    this.margin = options.refreshMarginMs ?? DEFAULT_REFRESH_MARGIN_MS;
    this.now = options.now ?? Date.now;
  }

  async getToken(scope: TokenScope): Promise<ScopedToken> {
    if (normalizeRepository(scope.repository) !== this.repository) {
      throw new AppError(
        'FORBIDDEN',
        `token requested for ${scope.repository}, but this source is scoped to ${this.options.repository}`,
        { details: { repository: scope.repository, scope: this.options.repository } },
      );
    }
    if (this.cached && this.cached.expiresAt.getTime() - this.now() > this.margin) {
      return this.cached;
    }
    this.minting ??= this.mintOnce();
    return this.minting;
  }

  private async mintOnce(): Promise<ScopedToken> {
    try {
      const minted = await this.options.mint({ repository: this.options.repository });
      this.cached = minted;
      return minted;
    } catch (error) {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'could not mint a GitHub token', {
        cause: error,
        details: { repository: this.options.repository },
      });
    } finally {
      this.minting = undefined;
    }
  }
}
