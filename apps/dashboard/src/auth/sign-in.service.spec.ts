import { isAppError } from '@caravel/errors';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type {
  DashboardSessionRepository,
  NewDashboardSession,
  SignInPinRepository,
} from '@caravel/db';
import { createHash } from 'node:crypto';
import { FakeGithubOAuth } from '@caravel/testing';
import { strictMock } from '@caravel/testing/doubles';
import { dashboardConfigFrom } from '../dashboard.config.js';
import { SessionsService } from '../services/sessions.service.js';
import { OAUTH_COOKIE, parseCookies, SESSION_COOKIE } from './cookies.js';
import { GithubOAuthClient } from './github-oauth.client.js';
import { SessionSealer } from './session-sealer.js';
import { SignInService, type SignInStep } from './sign-in.service.js';

const ORIGIN = 'http://127.0.0.1:3000';
const KEYS = `k1:${Buffer.alloc(32, 7).toString('base64')}`;

/** The value a Set-Cookie line sets, as the browser would send it back. */
function cookieValue(step: SignInStep, name: string): string {
  const line = step.cookies.find((cookie) => cookie.startsWith(`${name}=`)) ?? '';
  return line.slice(name.length + 1).split(';')[0] ?? '';
}

async function refusalOf(error: Promise<unknown>): Promise<string> {
  try {
    await error;
  } catch (thrown) {
    return isAppError(thrown) ? `${thrown.code}: ${thrown.message}` : String(thrown);
  }
  return 'no error';
}

describe('SignInService (GitHub OAuth web flow against a loopback GitHub)', () => {
  const github = new FakeGithubOAuth();
  let now = Date.parse('2026-12-01T10:00:00Z');
  const sealer = new SessionSealer(KEYS, () => now);
  /** `sign_in_pins`, in memory: the first account a login signed in as. */
  const pinned = new Map<string, number>();
  const pins = strictMock<SignInPinRepository>(
    {
      pin: async (login, githubId) => {
        const key = login.toLowerCase();
        if (!pinned.has(key)) pinned.set(key, githubId);
        return pinned.get(key) ?? githubId;
      },
    },
    'sign-in pins',
  );

  /** `dashboard_sessions`, in memory: each sign-in's record, and how often expired ones went. */
  const recorded: NewDashboardSession[] = [];
  let sweeps = 0;
  const sessions = new SessionsService(
    strictMock<DashboardSessionRepository>(
      {
        deleteExpired: async () => {
          sweeps += 1;
          return 0;
        },
        create: async (session) => {
          recorded.push(session);
          return {
            ...session,
            lastSeenAt: session.createdAt,
            revokedAt: null,
            revokedReason: null,
            revokedBy: null,
          };
        },
      },
      'dashboard sessions',
    ),
    sealer,
  );

  function service(env: Record<string, string> = {}): SignInService {
    const config = dashboardConfigFrom(env);
    const client = new GithubOAuthClient({
      clientId: github.clientId,
      clientSecret: github.clientSecret,
      webUrl: github.origin,
      apiUrl: github.origin,
    });
    return new SignInService(config, sealer, client, pins, sessions);
  }

  /** Starts a sign-in and lets the fake GitHub authorize it: the callback's query and cookie. */
  async function authorize(signIn: SignInService) {
    const start = signIn.start(ORIGIN);
    const answer = await fetch(start.location, { redirect: 'manual' });
    const back = new URL(answer.headers.get('location') ?? '');
    return {
      start,
      query: {
        code: back.searchParams.get('code') ?? '',
        state: back.searchParams.get('state') ?? '',
      },
      cookie: `${OAUTH_COOKIE}=${cookieValue(start, OAUTH_COOKIE)}`,
    };
  }

  beforeAll(async () => {
    await github.listen();
  });
  afterAll(async () => {
    await github.close();
  });

  it('sends the browser to GitHub with a state bound to an HttpOnly nonce cookie', () => {
    const step = service().start(ORIGIN);
    const url = new URL(step.location);
    expect(url.origin + url.pathname).toBe(`${github.origin}/login/oauth/authorize`);
    expect(url.searchParams.get('client_id')).toBe(github.clientId);
    expect(url.searchParams.get('redirect_uri')).toBe(`${ORIGIN}/auth/github/callback`);
    expect(url.searchParams.get('state')).toMatch(/^[\w-]{32}$/);
    expect(step.cookies[0]).toMatch(
      /^caravel_oauth=v1\.k1\.[\w-]+; Path=\/auth; Max-Age=600; HttpOnly; SameSite=Lax$/,
    );
  });

  it('signs a person in: the code is exchanged and the session cookie names them', async () => {
    const signIn = service({ DASHBOARD_MEMBERS: 'octocat' });
    const { query, cookie } = await authorize(signIn);
    const done = await signIn.finish(query, cookie, ORIGIN);
    expect(done.location).toBe('/#/threads');
    expect(done.cookies[0]).toMatch(/; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax$/);
    const session = sealer.openSession(cookieValue(done, SESSION_COOKIE));
    expect(session).toMatchObject({
      login: 'octocat',
      githubId: 583231,
      role: 'member',
      admission: { via: 'list' },
    });
    expect(github.calls.find((c) => c.path === '/user')?.headers['authorization']).toMatch(
      /^Bearer ghu_/,
    );
  });

  it('records the sign-in server-side under the hash of the id only its cookie carries', async () => {
    github.account = { login: 'octocat', id: 583231 };
    const signIn = service({ DASHBOARD_MEMBERS: 'octocat' });
    const { query, cookie } = await authorize(signIn);
    const before = { records: recorded.length, sweeps };
    const agent = `Mozilla/5.0 ${'x'.repeat(300)}`;
    const done = await signIn.finish(query, cookie, ORIGIN, {
      userAgent: agent,
      address: '203.0.113.7',
    });
    const session = sealer.openSession(cookieValue(done, SESSION_COOKIE));
    expect(session?.sid).toMatch(/^[\w-]{43}$/);
    expect(recorded.slice(before.records)).toEqual([
      {
        idSha256: createHash('sha256')
          .update(session?.sid ?? '')
          .digest('hex'),
        login: 'octocat',
        githubId: 583231,
        role: 'member',
        createdAt: new Date(now),
        expiresAt: new Date(session?.expiresAt ?? 0),
        userAgent: agent.slice(0, 200),
        address: '203.0.113.7',
      },
    ]);
    expect(JSON.stringify(recorded)).not.toContain(session?.sid);
    expect(sweeps).toBe(before.sweeps + 1);
  });

  it('refuses a state that is not the nonce of this browser, a missing cookie and a reused code', async () => {
    const signIn = service({ DASHBOARD_MEMBERS: 'octocat' });
    const first = await authorize(signIn);
    const second = await authorize(signIn);
    expect(await refusalOf(signIn.finish(first.query, second.cookie, ORIGIN))).toBe(
      'UNAUTHENTICATED: the sign-in state does not match: sign in again',
    );
    expect(await refusalOf(signIn.finish(first.query, undefined, ORIGIN))).toMatch(
      /^UNAUTHENTICATED: the sign-in expired/,
    );
    await signIn.finish(first.query, first.cookie, ORIGIN);
    expect(await refusalOf(signIn.finish(first.query, first.cookie, ORIGIN))).toBe(
      'UNAUTHENTICATED: GitHub refused the sign-in: The code passed is incorrect or expired.',
    );
  });

  it('admits only the listed logins when no organisation gates the sign-in (not any GitHub user)', async () => {
    github.account = { login: 'stranger', id: 9 };
    const open = service();
    const flow = await authorize(open);
    expect(await refusalOf(open.finish(flow.query, flow.cookie, ORIGIN))).toBe(
      'FORBIDDEN: stranger may not sign in: the dashboard admits the logins in DASHBOARD_MEMBERS and DASHBOARD_ADMINS, and the members of DASHBOARD_ALLOWED_ORGS',
    );

    const listed = service({ DASHBOARD_MEMBERS: 'ada, Stranger' });
    const again = await authorize(listed);
    const done = await listed.finish(again.query, again.cookie, ORIGIN);
    expect(sealer.openSession(cookieValue(done, SESSION_COOKIE))?.role).toBe('member');
  });

  it('gates on organisation membership and makes org admins and listed logins admins', async () => {
    const gated = service({ DASHBOARD_ALLOWED_ORGS: 'acme, other' });
    github.account = {
      login: 'outsider',
      id: 2,
      orgs: { acme: { state: 'pending', role: 'member' } },
    };
    const outsider = await authorize(gated);
    expect(await refusalOf(gated.finish(outsider.query, outsider.cookie, ORIGIN))).toBe(
      'FORBIDDEN: outsider is not an active member of acme, other: ask an owner for access',
    );

    github.account = { login: 'owner', id: 3, orgs: { other: { state: 'active', role: 'admin' } } };
    const owner = await authorize(gated);
    const ownerDone = await gated.finish(owner.query, owner.cookie, ORIGIN);
    expect(sealer.openSession(cookieValue(ownerDone, SESSION_COOKIE))).toMatchObject({
      role: 'admin',
      admission: { via: 'org', org: 'other' },
    });

    github.account = { login: 'Listed', id: 4 };
    const listed = service({ DASHBOARD_ADMINS: 'someone,listed' });
    const flow = await authorize(listed);
    const done = await listed.finish(flow.query, flow.cookie, ORIGIN);
    expect(sealer.openSession(cookieValue(done, SESSION_COOKIE))?.role).toBe('admin');
  });

  it("refuses another GitHub account under a listed login once it is pinned to the first (a renamed admin's old login, claimed)", async () => {
    const signIn = service({ DASHBOARD_ADMINS: 'ada-admin', DASHBOARD_ALLOWED_ORGS: 'acme' });
    github.account = { login: 'ada-admin', id: 101 };
    const first = await authorize(signIn);
    const done = await signIn.finish(first.query, first.cookie, ORIGIN);
    expect(sealer.openSession(cookieValue(done, SESSION_COOKIE))?.role).toBe('admin');

    github.account = { login: 'Ada-Admin', id: 666 };
    const claimed = await authorize(signIn);
    expect(await refusalOf(signIn.finish(claimed.query, claimed.cookie, ORIGIN))).toBe(
      "FORBIDDEN: the login Ada-Admin first signed in here as another GitHub account (id 101), and GitHub gives a renamed account's old login to whoever claims it: if this is that person's new account, an admin releases the login with DELETE /api/sign-in-pins/ada-admin",
    );

    // An organisation's member is who GitHub says signs in: no pin is taken or asked for.
    github.account = { login: 'bob', id: 7, orgs: { acme: { state: 'active', role: 'member' } } };
    const member = await authorize(signIn);
    await signIn.finish(member.query, member.cookie, ORIGIN);
    expect(pinned.has('bob')).toBe(false);
  });

  it('lets a session lapse after DASHBOARD_SESSION_HOURS and never opens a nonce as a session', async () => {
    github.account = { login: 'octocat', id: 583231 };
    const signIn = service({ DASHBOARD_MEMBERS: 'octocat', DASHBOARD_SESSION_HOURS: '1' });
    const { query, cookie } = await authorize(signIn);
    const value = cookieValue(await signIn.finish(query, cookie, ORIGIN), SESSION_COOKIE);
    expect(sealer.openSession(value)).not.toBeNull();
    expect(sealer.openSession(cookie.slice(OAUTH_COOKIE.length + 1))).toBeNull();
    now += 3_600_001;
    expect(sealer.openSession(value)).toBeNull();
    expect(parseCookies(`a=1; ${SESSION_COOKIE}=${value}`).get(SESSION_COOKIE)).toBe(value);
  });
});
