import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { DASHBOARD_CONFIG, type DashboardConfig } from '../dashboard.config.js';
import { OAUTH_COOKIE, parseCookies, SESSION_COOKIE, serializeCookie } from './cookies.js';
import { GithubOAuthClient, type GithubUser } from './github-oauth.client.js';
import { SessionSealer } from './session-sealer.js';
import type { Role, Session } from './session.types.js';

/** A sign-in has ten minutes between leaving for GitHub and coming back. */
const NONCE_TTL_MS = 10 * 60_000;
export const CALLBACK_PATH = '/auth/github/callback';

/** What the controller answers: where the browser goes next and the cookies it gets. */
export interface SignInStep {
  location: string;
  cookies: string[];
}

export interface CallbackQuery {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
}

/**
 * "Sign in with GitHub" (the OAuth web flow of the GitHub App): a random nonce goes to GitHub as
 * `state` and, sealed, into an HttpOnly cookie; the callback accepts the code only when its
 * `state` equals the nonce in that browser's cookie. The person then passes the org gate (when
 * configured), gets a role, and leaves with a sealed session cookie.
 */
@Injectable()
export class SignInService {
  constructor(
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
    @Inject(SessionSealer) private readonly sealer: SessionSealer,
    @Inject(GithubOAuthClient) private readonly github: GithubOAuthClient | null,
  ) {}

  get enabled(): boolean {
    return this.github !== null;
  }

  start(requestOrigin: string): SignInStep {
    const github = this.client();
    const nonce = randomBytes(24).toString('base64url');
    return {
      location: github.authorizeUrl(nonce, this.callbackUrl(requestOrigin)),
      cookies: [
        serializeCookie(OAUTH_COOKIE, this.sealer.sealNonce(nonce, NONCE_TTL_MS), {
          maxAgeSeconds: NONCE_TTL_MS / 1000,
          path: '/auth',
          secure: this.secure(requestOrigin),
        }),
      ],
    };
  }

  async finish(
    query: CallbackQuery,
    cookieHeader: string | string[] | undefined,
    requestOrigin: string,
  ): Promise<SignInStep> {
    const github = this.client();
    if (query.error) throw new AppError('UNAUTHENTICATED', `GitHub sign-in: ${query.error}`);
    const nonce = this.sealer.openNonce(parseCookies(cookieHeader).get(OAUTH_COOKIE));
    if (!query.code || !query.state || !sameText(query.state, nonce)) {
      throw new AppError('UNAUTHENTICATED', 'the sign-in state does not match: sign in again');
    }
    const token = await github.exchange(query.code, this.callbackUrl(requestOrigin));
    const user = await github.user(token);
    const role = await this.admit(github, token, user);
    const hours = this.config.sessions.hours;
    const session: Session = {
      login: user.login,
      githubId: user.id,
      name: user.name ?? null,
      avatarUrl: user.avatar_url ?? null,
      role,
      expiresAt: this.sealer.now() + hours * 3_600_000,
    };
    const secure = this.secure(requestOrigin);
    return {
      location: '/#/threads',
      cookies: [
        serializeCookie(SESSION_COOKIE, this.sealer.sealSession(session), {
          maxAgeSeconds: hours * 3600,
          path: '/',
          secure,
        }),
        serializeCookie(OAUTH_COOKIE, '', { maxAgeSeconds: 0, path: '/auth', secure }),
      ],
    };
  }

  /** The cookie that ends a session in this browser. */
  signOutCookie(requestOrigin: string): string {
    return serializeCookie(SESSION_COOKIE, '', {
      maxAgeSeconds: 0,
      path: '/',
      secure: this.secure(requestOrigin),
    });
  }

  /** The org gate, then the role: listed admins, and admins of an allowed organisation. */
  private async admit(github: GithubOAuthClient, token: string, user: GithubUser): Promise<Role> {
    const listed = this.config.signIn.admins.some(
      (admin) => admin.toLowerCase() === user.login.toLowerCase(),
    );
    const orgs = this.config.signIn.allowedOrgs;
    if (orgs.length === 0) return listed ? 'admin' : 'member';
    const memberships = await Promise.all(orgs.map((org) => github.membership(token, org)));
    const active = memberships.filter((m) => m?.state === 'active');
    if (active.length === 0) {
      throw new AppError(
        'FORBIDDEN',
        `${user.login} is not an active member of ${orgs.join(', ')}: ask an owner for access`,
      );
    }
    return listed || active.some((m) => m?.role === 'admin') ? 'admin' : 'member';
  }

  private client(): GithubOAuthClient {
    if (!this.github) {
      throw new AppError(
        'PRECONDITION_FAILED',
        'sign-in is off: set GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET',
      );
    }
    return this.github;
  }

  private callbackUrl(requestOrigin: string): string {
    return `${this.config.origins.publicUrl ?? requestOrigin}${CALLBACK_PATH}`;
  }

  private secure(requestOrigin: string): boolean {
    return (this.config.origins.publicUrl ?? requestOrigin).startsWith('https:');
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
