import { AppError, isAppError } from '@caravel/errors';
import type { OrgStanding } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { beforeEach, describe, expect, it } from '@jest/globals';
import type { ExecutionContext } from '@nestjs/common';
import type { Request, Response } from 'express';
import { dashboardConfigFrom } from '../dashboard.config.js';
import { CallerResolver } from './caller.resolver.js';
import { SESSION_COOKIE } from './cookies.js';
import { CorsMiddleware } from './cors.middleware.js';
import type {
  DashboardSessionRepository,
  DashboardSessionRow,
  PersonalTokenRepository,
  PersonalTokenRow,
} from '@caravel/db';
import { PersonalTokensService } from '../services/personal-tokens.service.js';
import { SessionsService } from '../services/sessions.service.js';
import { ActionGuard, AdminGuard, ReadGuard } from './guards.js';
import { OrgAdmissionCheck, type OrgStandingLookup } from './org-admission.check.js';
import { mintPersonalToken, type MintedToken } from './personal-token.js';
import { OriginPolicy } from './origin-policy.js';
import { SessionSealer } from './session-sealer.js';
import type { Admission, AuthRequest, Role } from './session.types.js';
import type { SignInService } from './sign-in.service.js';

const TOKEN = 'a-long-enough-dashboard-token';
const sealer = new SessionSealer(undefined);
/** The session id every cookie here names; its record is live (revocation: sessions.medium-spec). */
const SID = 'a-session-id-of-forty-three-characters-long';

/** Every session asked about is live, used just now. */
const liveSessions = new SessionsService(
  strictMock<DashboardSessionRepository>(
    {
      get: (idSha256: string): Promise<DashboardSessionRow> =>
        Promise.resolve({
          idSha256,
          login: 'octocat',
          githubId: 1,
          role: 'member',
          createdAt: new Date(),
          lastSeenAt: new Date(),
          expiresAt: new Date(Date.now() + 60_000),
          revokedAt: null,
          revokedReason: null,
          revokedBy: null,
          userAgent: null,
          address: null,
        }),
    },
    'sessions',
  ),
  sealer,
);

/** Octocat's session cookie, let in as `role` through the acme organisation unless said. */
function cookieOf(role: Role = 'member', admission?: Admission): string {
  const session = { login: 'octocat', githubId: 1, name: null, avatarUrl: null, role };
  const sealed = sealer.sealSession({
    ...session,
    sid: SID,
    admission: admission ?? { via: 'org', org: 'acme' },
    expiresAt: Date.now() + 60_000,
  });
  return `${SESSION_COOKIE}=${sealed}`;
}

function context(
  headers: AuthRequest['headers'],
  method = 'POST',
): { ctx: ExecutionContext; request: AuthRequest } {
  const request: AuthRequest = {
    headers: { host: '127.0.0.1:3000', ...headers },
    method,
    protocol: 'http',
  };
  const http = strictMock<ReturnType<ExecutionContext['switchToHttp']>>(
    { getRequest: <T>() => request as T },
    'http',
  );
  return { ctx: strictMock<ExecutionContext>({ switchToHttp: () => http }, 'context'), request };
}

async function outcome(run: () => unknown): Promise<string> {
  try {
    await run();
    return 'allowed';
  } catch (error) {
    return isAppError(error) ? error.code : 'not coded';
  }
}

const PERSONAL = mintPersonalToken();
const READ_ONLY = mintPersonalToken();
const NOW = Date.now();

/** Two live tokens of octocat's: one that may act, one that may only read. */
function tokenRow(minted: MintedToken, scope: 'read' | 'act'): PersonalTokenRow {
  return {
    id: minted.id,
    login: 'octocat',
    githubId: 1,
    name: scope,
    scope,
    secretSha256: minted.secretSha256,
    createdAt: new Date(NOW),
    expiresAt: new Date(NOW + 3_600_000),
    lastUsedAt: null,
    revokedAt: null,
  };
}

const personalTokens = new PersonalTokensService(
  strictMock<PersonalTokenRepository>(
    {
      get: (id: string) =>
        Promise.resolve(
          [tokenRow(PERSONAL, 'act'), tokenRow(READ_ONLY, 'read')].find((r) => r.id === id) ?? null,
        ),
      touch: () => Promise.resolve(),
    },
    'personal tokens',
  ),
);

/**
 * The guards under `env`; octocat's organisation acme is allowed unless `env` says otherwise.
 * GitHub's answers on who belongs to which organisation come from `orgs` (no App: none asked).
 */
function guards(
  env: Record<string, string>,
  signInEnabled = true,
  orgs = new OrgAdmissionCheck(null),
) {
  const config = dashboardConfigFrom({ DASHBOARD_ALLOWED_ORGS: 'acme', ...env });
  const callers = new CallerResolver(config, sealer, personalTokens, orgs, liveSessions);
  const signIn = { enabled: signInEnabled } as SignInService;
  const action = new ActionGuard(callers, signIn, new OriginPolicy(config.origins), config);
  const read = new ReadGuard(callers, signIn, new OriginPolicy(config.origins), config);
  return { read, action, admin: new AdminGuard(action, read) };
}

describe('dashboard guards', () => {
  const { read, action, admin } = guards({
    DASHBOARD_TOKEN: TOKEN,
    DASHBOARD_ALLOWED_ORIGINS: 'https://ops.example.com',
  });
  const act = (headers: AuthRequest['headers']) =>
    outcome(() => action.canActivate(context(headers).ctx));

  it('lets a signed-in person act only from the dashboard or an allowed origin', async () => {
    const cookie = cookieOf();
    expect(await act({ cookie, origin: 'http://127.0.0.1:3000' })).toBe('allowed');
    expect(await act({ cookie, origin: 'https://ops.example.com' })).toBe('allowed');
    expect(await act({ cookie, origin: 'http://127.0.0.1:4000' })).toBe('FORBIDDEN');
    expect(await act({ cookie, origin: 'null' })).toBe('FORBIDDEN');
    expect(await act({ cookie })).toBe('FORBIDDEN');
  });

  it('takes the machine token without an origin and refuses a wrong one, even beside a cookie', async () => {
    expect(await act({ authorization: `Bearer ${TOKEN}` })).toBe('allowed');
    expect(await act({ authorization: `Bearer ${TOKEN.slice(0, -1)}` })).toBe('UNAUTHENTICATED');
    expect(
      await act({
        authorization: 'Bearer nope',
        cookie: cookieOf(),
        origin: 'http://127.0.0.1:3000',
      }),
    ).toBe('UNAUTHENTICATED');
    expect(await act({})).toBe('UNAUTHENTICATED');
    expect(
      await act({ cookie: `${SESSION_COOKIE}=v1.process.forged`, origin: 'http://127.0.0.1:3000' }),
    ).toBe('UNAUTHENTICATED');
  });

  it('fails closed when neither sign-in nor a token is configured', async () => {
    const off = guards({}, false);
    expect(
      await outcome(() =>
        off.action.canActivate(context({ authorization: `Bearer ${TOKEN}` }).ctx),
      ),
    ).toBe('UNAUTHENTICATED');
    expect(await outcome(() => off.action.canActivate(context({}).ctx))).toBe('FORBIDDEN');
    expect(await outcome(() => off.read.canActivate(context({}).ctx))).toBe('allowed');
  });

  it('answers open reads only at an address no other site can point at it (DNS rebinding)', async () => {
    const off = guards({}, false);
    const readAt = (host: string) =>
      outcome(() => off.read.canActivate(context({ host }, 'GET').ctx));
    expect(await readAt('127.0.0.1:3000')).toBe('allowed');
    expect(await readAt('[::1]:3000')).toBe('allowed');
    expect(await readAt('localhost:3000')).toBe('allowed');
    expect(await readAt('10.1.2.3')).toBe('allowed');
    // A page of attacker.example whose name now resolves to 127.0.0.1 is same-origin with it.
    expect(await readAt('attacker.example:3000')).toBe('FORBIDDEN');
    expect(await readAt('localhost.attacker.example:3000')).toBe('FORBIDDEN');
    expect(await readAt('attacker.localhost:3000')).toBe('FORBIDDEN');
    const named = guards({ DASHBOARD_PUBLIC_URL: 'http://caravel.internal:3000' }, false);
    const readNamed = (host: string) =>
      outcome(() => named.read.canActivate(context({ host }, 'GET').ctx));
    expect(await readNamed('caravel.internal:3000')).toBe('allowed');
    expect(await readNamed('attacker.example:3000')).toBe('FORBIDDEN');
  });

  it('wants the token for reads when only the token is configured (no sign-in)', async () => {
    const tokenOnly = guards({ DASHBOARD_TOKEN: TOKEN }, false);
    const reads = (headers: AuthRequest['headers']) =>
      outcome(() => tokenOnly.read.canActivate(context(headers).ctx));
    expect(await reads({})).toBe('UNAUTHENTICATED');
    expect(await reads({ authorization: `Bearer ${TOKEN.slice(0, -1)}` })).toBe('UNAUTHENTICATED');
    expect(await reads({ authorization: `Bearer ${TOKEN}` })).toBe('allowed');
  });

  it('wants a session or the token for reads once sign-in is on, and the admin role for admin routes', async () => {
    expect(await outcome(() => read.canActivate(context({}).ctx))).toBe('UNAUTHENTICATED');
    const { ctx, request } = context({ cookie: cookieOf() });
    expect(await outcome(() => read.canActivate(ctx))).toBe('allowed');
    expect(request.caller).toMatchObject({ kind: 'person', session: { login: 'octocat' } });
    const origin = 'http://127.0.0.1:3000';
    expect(
      await outcome(() => admin.canActivate(context({ cookie: cookieOf(), origin }).ctx)),
    ).toBe('FORBIDDEN');
    expect(
      await outcome(() => admin.canActivate(context({ cookie: cookieOf('admin'), origin }).ctx)),
    ).toBe('allowed');
    expect(
      await outcome(() => admin.canActivate(context({ authorization: `Bearer ${TOKEN}` }).ctx)),
    ).toBe('allowed');
  });

  it("reads an admin route from the dashboard's own page (no Origin on a GET) for admins only", async () => {
    const get = (headers: AuthRequest['headers']) =>
      admin.canActivate(context(headers, 'GET').ctx).then(
        () => 'allowed',
        (error: unknown) => (isAppError(error) ? `${error.code}: ${error.message}` : 'not coded'),
      );
    expect(await get({ cookie: cookieOf('admin') })).toBe('allowed');
    expect(await get({ cookie: cookieOf() })).toBe('FORBIDDEN: octocat is not a dashboard admin');
    expect(await get({})).toMatch(/^UNAUTHENTICATED/);
    const open = guards({}, false);
    expect(
      await open.admin.canActivate(context({}, 'GET').ctx).then(
        () => 'allowed',
        (error: unknown) => (isAppError(error) ? error.code : 'not coded'),
      ),
    ).toBe('FORBIDDEN');
  });
});

describe('CorsMiddleware', () => {
  const config = dashboardConfigFrom({
    DASHBOARD_ALLOWED_ORIGINS: 'https://ops.example.com',
  });
  const cors = new CorsMiddleware(new OriginPolicy(config.origins));

  function run(method: string, origin: string) {
    const headers: Record<string, string> = {};
    let status = 0;
    let passed = false;
    const response: Response = strictMock<Response>(
      {
        vary: () => response,
        setHeader: (name: string, value: string | number | readonly string[]) => {
          headers[name.toLowerCase()] = String(value);
          return response;
        },
        status: (code: number) => {
          status = code;
          return response;
        },
        end: () => response,
      },
      'response',
    );
    const request = strictMock<Request>(
      { method, headers: { origin, host: 'caravel.local' } },
      'request',
    );
    cors.use(request, response, () => {
      passed = true;
    });
    return { headers, status, passed };
  }

  it('answers credentialed CORS for an allowed origin only', async () => {
    expect(run('GET', 'https://ops.example.com')).toEqual({
      headers: {
        'access-control-allow-origin': 'https://ops.example.com',
        'access-control-allow-credentials': 'true',
      },
      status: 0,
      passed: true,
    });
    expect(run('GET', 'https://evil.example')).toEqual({ headers: {}, status: 0, passed: true });
    expect(run('OPTIONS', 'https://ops.example.com')).toMatchObject({ status: 204, passed: false });
    expect(run('OPTIONS', 'https://evil.example')).toEqual({
      headers: {},
      status: 403,
      passed: false,
    });
  });

  it('refuses * as an allowed origin at start', async () => {
    expect(() => dashboardConfigFrom({ DASHBOARD_ALLOWED_ORIGINS: '*' })).toThrow();
  });
});

describe('personal API tokens', () => {
  const { read, action, admin } = guards({ DASHBOARD_TOKEN: TOKEN });
  const act = (headers: AuthRequest['headers']) =>
    outcome(() => action.canActivate(context(headers).ctx));

  it('acts as the person with their API token, within its scope, never on admin routes', async () => {
    const bearer = (minted: MintedToken) => ({ authorization: `Bearer ${minted.token}` });
    const { ctx, request } = context(bearer(PERSONAL));
    expect(await outcome(() => action.canActivate(ctx))).toBe('allowed');
    expect(request.caller).toMatchObject({
      kind: 'person',
      session: { login: 'octocat', role: 'member' },
      token: { id: PERSONAL.id, scope: 'act' },
    });
    expect(await outcome(() => read.canActivate(context(bearer(READ_ONLY)).ctx))).toBe('allowed');
    expect(await act(bearer(READ_ONLY))).toBe('FORBIDDEN');
    expect(await outcome(() => admin.canActivate(context(bearer(PERSONAL)).ctx))).toBe('FORBIDDEN');
    // A wrong secret for a real id, an unknown id, a malformed token: refused, never anonymous.
    const forged = `${PERSONAL.token.slice(0, -1)}${PERSONAL.token.endsWith('A') ? 'B' : 'A'}`;
    expect(await act({ authorization: `Bearer ${forged}` })).toBe('UNAUTHENTICATED');
    expect(await act(bearer(mintPersonalToken()))).toBe('UNAUTHENTICATED');
    expect(await act({ authorization: 'Bearer cvt_nope' })).toBe('UNAUTHENTICATED');
  });
});

describe('a sign-in under a changed configuration', () => {
  const readAs = (
    env: Record<string, string>,
    headers: AuthRequest['headers'],
    orgs?: OrgAdmissionCheck,
  ) => {
    const { read } = guards(env, true, orgs);
    const { ctx, request } = context(headers, 'GET');
    return outcome(() => read.canActivate(ctx)).then((result) => ({
      result,
      role: request.caller?.kind === 'person' ? request.caller.session.role : null,
    }));
  };
  const listedAdmin = cookieOf('admin', { via: 'list' });

  it('gives a listed session the role the lists give it now, and none once they drop it', async () => {
    const noOrgs = { DASHBOARD_ALLOWED_ORGS: '' };
    expect(
      await readAs({ ...noOrgs, DASHBOARD_ADMINS: 'octocat' }, { cookie: listedAdmin }),
    ).toEqual({ result: 'allowed', role: 'admin' });
    expect(
      await readAs({ ...noOrgs, DASHBOARD_MEMBERS: 'OctoCat' }, { cookie: listedAdmin }),
    ).toEqual({ result: 'allowed', role: 'member' });
    expect(
      await readAs({ ...noOrgs, DASHBOARD_MEMBERS: 'hubot' }, { cookie: listedAdmin }),
    ).toEqual({ result: 'UNAUTHENTICATED', role: null });
  });

  it('ends a session let in through an organisation once that organisation is no longer allowed', async () => {
    const orgAdmin = cookieOf('admin', { via: 'org', org: 'acme' });
    expect(await readAs({ DASHBOARD_ALLOWED_ORGS: 'ACME' }, { cookie: orgAdmin })).toEqual({
      result: 'allowed',
      role: 'admin',
    });
    expect(await readAs({ DASHBOARD_ALLOWED_ORGS: 'globex' }, { cookie: orgAdmin })).toEqual({
      result: 'UNAUTHENTICATED',
      role: null,
    });
  });

  it('counts a cookie sealed before admissions were recorded only through the lists', async () => {
    const session = { login: 'octocat', githubId: 1, name: null, avatarUrl: null };
    const old = `${SESSION_COOKIE}=${sealer.sealSession({ ...session, sid: SID, role: 'admin', expiresAt: Date.now() + 60_000 })}`;
    expect(await readAs({}, { cookie: old })).toEqual({ result: 'UNAUTHENTICATED', role: null });
    expect(await readAs({ DASHBOARD_MEMBERS: 'octocat' }, { cookie: old })).toEqual({
      result: 'allowed',
      role: 'member',
    });
  });

  it('refuses a personal token whose owner the configuration no longer lets in', async () => {
    const bearer = { authorization: `Bearer ${PERSONAL.token}` };
    const dropped = { DASHBOARD_ALLOWED_ORGS: '', DASHBOARD_MEMBERS: 'hubot' };
    expect(await readAs(dropped, bearer)).toEqual({ result: 'UNAUTHENTICATED', role: null });
    expect(await readAs({ ...dropped, DASHBOARD_MEMBERS: 'octocat' }, bearer)).toEqual({
      result: 'allowed',
      role: 'member',
    });
  });

  describe('with the GitHub App, which GitHub asks who still belongs to an organisation', () => {
    /** GitHub's answers: octocat's standing per organisation (absent: not a member). */
    const github = new Map<string, OrgStanding>();
    const asked: string[] = [];
    const standings = strictMock<OrgStandingLookup>(
      {
        standingOf: (org, login) => {
          asked.push(`${org}/${login}`);
          if (org === 'down')
            return Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub is down'));
          return Promise.resolve(login === 'octocat' ? (github.get(org) ?? null) : null);
        },
      },
      'org standings',
    );
    const orgs = new OrgAdmissionCheck(standings);
    const orgMember = cookieOf('member', { via: 'org', org: 'acme' });

    beforeEach(() => {
      github.clear();
      asked.length = 0;
    });

    it('ends a session once its person left the organisation, and follows a change of their role there', async () => {
      github.set('acme', { state: 'active', role: 'member' });
      expect(await readAs({}, { cookie: orgMember }, orgs)).toEqual({
        result: 'allowed',
        role: 'member',
      });
      github.set('acme', { state: 'active', role: 'admin' });
      expect(await readAs({}, { cookie: orgMember }, orgs)).toEqual({
        result: 'allowed',
        role: 'admin',
      });
      github.set('acme', { state: 'pending', role: 'member' });
      expect(await readAs({}, { cookie: orgMember }, orgs)).toEqual({
        result: 'UNAUTHENTICATED',
        role: null,
      });
      github.delete('acme');
      expect(await readAs({}, { cookie: orgMember }, orgs)).toEqual({
        result: 'UNAUTHENTICATED',
        role: null,
      });
      expect(asked).toEqual(['acme/octocat', 'acme/octocat', 'acme/octocat', 'acme/octocat']);
    });

    it('asks nothing of a listed login, and fails closed when GitHub cannot answer', async () => {
      const listed = { DASHBOARD_MEMBERS: 'octocat' };
      expect(await readAs(listed, { cookie: orgMember }, orgs)).toEqual({
        result: 'allowed',
        role: 'member',
      });
      expect(asked).toEqual([]);
      const down = cookieOf('member', { via: 'org', org: 'down' });
      expect(await readAs({ DASHBOARD_ALLOWED_ORGS: 'down' }, { cookie: down }, orgs)).toEqual({
        result: 'DEPENDENCY_UNAVAILABLE',
        role: null,
      });
    });

    it('stops a personal token once its owner belongs to no allowed organisation any more', async () => {
      const bearer = { authorization: `Bearer ${PERSONAL.token}` };
      const two = { DASHBOARD_ALLOWED_ORGS: 'acme,globex' };
      github.set('globex', { state: 'active', role: 'member' });
      expect(await readAs(two, bearer, orgs)).toEqual({ result: 'allowed', role: 'member' });
      expect(asked).toEqual(['acme/octocat', 'globex/octocat']);
      github.delete('globex');
      expect(await readAs(two, bearer, orgs)).toEqual({ result: 'UNAUTHENTICATED', role: null });
      expect(await readAs({ ...two, DASHBOARD_MEMBERS: 'octocat' }, bearer, orgs)).toEqual({
        result: 'allowed',
        role: 'member',
      });
    });

    it("keeps the sign-in's answer without the App, which cannot ask", async () => {
      const bearer = { authorization: `Bearer ${PERSONAL.token}` };
      expect(await readAs({}, { cookie: orgMember })).toEqual({
        result: 'allowed',
        role: 'member',
      });
      expect(await readAs({}, bearer)).toEqual({ result: 'allowed', role: 'member' });
    });
  });
});
