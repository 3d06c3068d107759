import { SignInPinRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { GITHUB_SIGN_IN_CALLBACK_PATH } from '@caravel/integrations';
import { Inject, Injectable } from '@nestjs/common';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { DASHBOARD_CONFIG, type DashboardConfig } from '../dashboard.config.js';
import { SessionsService, type SignInClient } from '../services/sessions.service.js';
import { listedRole } from './admission.js';
import { OAUTH_COOKIE, parseCookies, SESSION_COOKIE, serializeCookie } from './cookies.js';
import { GithubOAuthClient, type GithubUser } from './github-oauth.client.js';
import { SessionSealer } from './session-sealer.js';
import type { Admission, Caller, Role, Session } from './session.types.js';

/** A sign-in has ten minutes between leaving for GitHub and coming back. */
const NONCE_TTL_MS = 10 * 60_000;
/** Where GitHub sends the browser back: the App's manifest names the same path as its callback. */
export const CALLBACK_PATH = GITHUB_SIGN_IN_CALLBACK_PATH;

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
 * configured), gets a role, and leaves with a sealed session cookie naming a session recorded
 * server-side ({@link SessionsService}), which signing out ends.
 */
@Injectable()
export class SignInService {
  constructor(
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
    @Inject(SessionSealer) private readonly sealer: SessionSealer,
    @Inject(GithubOAuthClient) private readonly github: GithubOAuthClient | null,
    @Inject(SignInPinRepository) private readonly pins: SignInPinRepository,
    @Inject(SessionsService) private readonly sessions: SessionsService,
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
    client: SignInClient = {},
  ): Promise<SignInStep> {
    const github = this.client();
    if (query.error) throw new AppError('UNAUTHENTICATED', `GitHub sign-in: ${query.error}`);
    const nonce = this.sealer.openNonce(parseCookies(cookieHeader).get(OAUTH_COOKIE));
    if (!query.code || !query.state || !sameText(query.state, nonce)) {
      throw new AppError('UNAUTHENTICATED', 'the sign-in state does not match: sign in again');
    }
    const token = await github.exchange(query.code, this.callbackUrl(requestOrigin));
    const user = await github.user(token);
    const { role, admission } = await this.admit(github, token, user);
    if (admission.via === 'list') await this.keepToPinnedAccount(user);
    const hours = this.config.sessions.hours;
    const expiresAt = this.sealer.now() + hours * 3_600_000;
    const person = {
      login: user.login,
      githubId: user.id,
      name: user.name ?? null,
      avatarUrl: user.avatar_url ?? null,
      role,
    };
    const sid = await this.sessions.open(person, new Date(expiresAt), client);
    const session: Session = { ...person, sid, admission, expiresAt };
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

  /**
   * Where a refused sign-in lands: the sign-in page with the refusal sealed (`?refusal=`), so
   * that page shows only words the dashboard wrote, never a link's.
   */
  refusedPage(error: AppError): string {
    const sealed = this.sealer.sealRefusal(
      { code: error.code, message: error.message },
      NONCE_TTL_MS,
    );
    return `/#/sign-in?${new URLSearchParams({ refusal: sealed }).toString()}`;
  }

  /** The refusal {@link refusedPage} sealed, for the sign-in page to show. */
  refusal(sealed: string): { code: string; message: string } {
    const refusal = this.sealer.openRefusal(sealed);
    if (!refusal) {
      throw new AppError(
        'NOT_FOUND',
        'no sign-in refusal of this dashboard (expired, or not made here): sign in again',
      );
    }
    return refusal;
  }

  /** Ends the caller's session (its record revoked): the cookie that clears it in this browser. */
  async signOut(caller: Caller | null, requestOrigin: string): Promise<string> {
    if (caller) await this.sessions.signOut(caller);
    return this.signOutCookie(requestOrigin);
  }

  /** The cookie that clears the session in this browser. */
  signOutCookie(requestOrigin: string): string {
    return serializeCookie(SESSION_COOKIE, '', {
      maxAgeSeconds: 0,
      path: '/',
      secure: this.secure(requestOrigin),
    });
  }

  /**
   * Who may sign in, and as what: the listed logins (`DASHBOARD_ADMINS` as admins,
   * `DASHBOARD_MEMBERS` as members) and the active members of an allowed organisation (its admins
   * as admins). Nobody else: with no organisation configured that is not "any GitHub user", since
   * a member reads every thread and may run commands in its sandbox.
   */
  private async admit(
    github: GithubOAuthClient,
    token: string,
    user: GithubUser,
  ): Promise<{ role: Role; admission: Admission }> {
    const { allowedOrgs: orgs } = this.config.signIn;
    const listed = listedRole(this.config.signIn, user.login);
    if (listed) return { role: listed, admission: { via: 'list' } };
    if (orgs.length === 0) {
      throw new AppError(
        'FORBIDDEN',
        `${user.login} may not sign in: the dashboard admits the logins in DASHBOARD_MEMBERS and DASHBOARD_ADMINS, and the members of DASHBOARD_ALLOWED_ORGS`,
      );
    }
    const memberships = await Promise.all(
      orgs.map(async (org) => ({ org, membership: await github.membership(token, org) })),
    );
    const active = memberships.filter(({ membership }) => membership?.state === 'active');
    const chosen = active.find(({ membership }) => membership?.role === 'admin') ?? active[0];
    if (!chosen) {
      throw new AppError(
        'FORBIDDEN',
        `${user.login} is not an active member of ${orgs.join(', ')}: ask an owner for access`,
      );
    }
    const role = chosen.membership?.role === 'admin' ? 'admin' : 'member';
    return { role, admission: { via: 'org', org: chosen.org } };
  }

  /**
   * A listed login signs in only as the GitHub account it first signed in as (its pin). GitHub
   * frees a login when its account is renamed, so without this whoever claimed an admin's old
   * login would sign in as that admin. Organisation members need no pin: GitHub itself answers
   * for the account that signs in.
   */
  private async keepToPinnedAccount(user: GithubUser): Promise<void> {
    const pinned = await this.pins.pin(user.login, user.id);
    if (pinned === user.id) return;
    throw new AppError(
      'FORBIDDEN',
      `the login ${user.login} first signed in here as another GitHub account (id ${pinned}), and GitHub gives a renamed account's old login to whoever claims it: if this is that person's new account, an admin releases the login with DELETE /api/sign-in-pins/${user.login.toLowerCase()}`,
    );
  }

  /** An admin releases `login`'s pin: its next sign-in pins it to that account. */
  async releasePin(login: string): Promise<void> {
    if (!(await this.pins.release(login))) {
      throw new AppError('NOT_FOUND', `the login ${login} is not pinned to any account`);
    }
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
