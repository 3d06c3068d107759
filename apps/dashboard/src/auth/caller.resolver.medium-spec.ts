import {
  DashboardSessionRepository,
  openDatabase,
  PersonalTokenRepository,
  type Database,
} from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { describeEachDatabase } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { dashboardConfigFrom } from '../dashboard.config.js';
import { PersonalTokensService } from '../services/personal-tokens.service.js';
import { SESSION_SEEN_EVERY_MS, SessionsService } from '../services/sessions.service.js';
import { CallerResolver } from './caller.resolver.js';
import { SESSION_COOKIE } from './cookies.js';
import { OrgAdmissionCheck } from './org-admission.check.js';
import { SessionSealer } from './session-sealer.js';
import type { Caller, Person } from './session.types.js';

const KEYS = `k1:${Buffer.alloc(32, 9).toString('base64')}`;
const HOUR = 3_600_000;
/** The members listed here: each case signs in people of its own. */
const MEMBERS = Array.from({ length: 100 }, (_, n) => `octo-${n}`);

await describeEachDatabase('dashboard sessions kept server-side', openDatabase, (target) => {
  let database: Database;
  let now = Date.parse('2026-12-05T10:00:00Z');
  const sealer = new SessionSealer(KEYS, () => now);
  let sessions: SessionsService;
  let resolver: CallerResolver;

  /** The resolver and sessions over `db`, hubot an admin and everyone here a member. */
  function over(db: Database) {
    const service = new SessionsService(new DashboardSessionRepository(db.db), sealer);
    const config = dashboardConfigFrom({
      DASHBOARD_ADMINS: 'hubot',
      DASHBOARD_MEMBERS: MEMBERS.join(','),
    });
    const tokens = new PersonalTokensService(new PersonalTokenRepository(db.db));
    const callers = new CallerResolver(
      config,
      sealer,
      tokens,
      new OrgAdmissionCheck(null),
      service,
    );
    return { service, callers };
  }

  beforeAll(async () => {
    database = await target.open();
    ({ service: sessions, callers: resolver } = over(database));
  });

  afterAll(async () => {
    await database?.close();
  });

  let people = 0;
  /** A listed person not signed in before (the admin is always hubot). */
  const person = (role: Person['role'] = 'member'): Person => ({
    login: role === 'admin' ? 'hubot' : `Octo-${(people += 1)}`,
    githubId: 583231,
    name: null,
    avatarUrl: null,
    role,
  });

  /** Signs `who` in as the sign-in does: a record, and the cookie a browser would send. */
  async function signIn(who: Person, userAgent = 'Mozilla/5.0', kept = sessions): Promise<string> {
    const expiresAt = now + 12 * HOUR;
    const sid = await kept.open(who, new Date(expiresAt), { userAgent });
    const sealed = sealer.sealSession({ ...who, sid, admission: { via: 'list' }, expiresAt });
    return `${SESSION_COOKIE}=${sealed}`;
  }

  /** Who a request with `cookie` is, or its refusal as `CODE: message`. */
  async function whoIs(cookie: string, callers = resolver): Promise<string> {
    try {
      const caller = await callers.resolve({ headers: { cookie }, method: 'GET' });
      return caller?.kind === 'person' ? caller.session.login : (caller?.kind ?? 'nobody');
    } catch (error) {
      return isAppError(error) ? `${error.code}: ${error.message}` : `uncoded: ${String(error)}`;
    }
  }

  async function callerOf(cookie: string): Promise<Caller> {
    const caller = await resolver.resolve({ headers: { cookie }, method: 'GET' });
    if (!caller) throw new Error('nobody');
    return caller;
  }

  const admitting = (who: Person) => new RegExp(`^${who.login}$`, 'i');

  it('admits a live session and refuses its cookie once it signed out, wherever it is replayed', async () => {
    const octo = person();
    const laptop = await signIn(octo);
    const stolen = laptop; // the same cookie, copied to another machine
    expect(await whoIs(laptop)).toMatch(admitting(octo));
    await sessions.signOut(await callerOf(laptop));
    expect(await whoIs(stolen)).toBe('UNAUTHENTICATED: this session was signed out: sign in again');
  });

  it("ends every session of a person who signs out everywhere, and an admin ends another's", async () => {
    const octo = person();
    const [laptop, phone] = [await signIn(octo), await signIn(octo, 'Phone')];
    const other = person();
    const theirs = await signIn(other);
    expect(await sessions.signOutEverywhere(await callerOf(phone))).toBe(2);
    expect(await whoIs(laptop)).toBe(
      'UNAUTHENTICATED: this session ended when its person signed out everywhere: sign in again',
    );
    expect(await whoIs(theirs)).toMatch(admitting(other));

    const admin = await callerOf(await signIn(person('admin')));
    expect(await sessions.endFor(admin, other.login.toUpperCase())).toBe(1);
    expect(await whoIs(theirs)).toBe('UNAUTHENTICATED: an admin ended this session: sign in again');
    expect(await sessions.endFor(admin, other.login)).toBe(0);
  });

  it('refuses a cookie whose record expired or was never kept, and one sealed with no session', async () => {
    const octo = person();
    const cookie = await signIn(octo);
    const sealed = (sid?: string) =>
      `${SESSION_COOKIE}=${sealer.sealSession({ ...octo, ...(sid ? { sid } : {}), expiresAt: now + HOUR })}`;
    expect(await whoIs(sealed('x'.repeat(43)))).toBe(
      'UNAUTHENTICATED: this session is unknown to the dashboard (ended and since removed): sign in again',
    );
    // A cookie of the stateless sessions (no id in it) no longer opens at all: nobody.
    expect(await whoIs(sealed())).toBe('nobody');
    const before = now;
    try {
      now += 12 * HOUR + 1;
      expect(await whoIs(cookie)).toBe('nobody'); // the cookie's own expiry, as before
      await signIn(person()); // a sign-in deletes the expired records
      now = before;
      expect(await whoIs(cookie)).toMatch(/^UNAUTHENTICATED: this session is unknown/);
    } finally {
      now = before;
    }
  });

  it('notes the last use at most every five minutes, not at each request', async () => {
    const octo = person();
    const cookie = await signIn(octo);
    const start = now;
    const lastSeen = async () =>
      (await sessions.list(await callerOf(cookie))).map((s) => s.lastSeenAt.getTime());
    try {
      now = start + SESSION_SEEN_EVERY_MS - 1;
      expect(await lastSeen()).toEqual([start]);
      now = start + SESSION_SEEN_EVERY_MS;
      expect(await lastSeen()).toEqual([now]);
    } finally {
      now = start;
    }
  });

  it("lists a person's live sessions with this one flagged, and another's only for an admin", async () => {
    const octo = person();
    const laptop = await signIn(octo, 'Laptop');
    await signIn(octo, 'Phone');
    const listed = await sessions.list(await callerOf(laptop));
    expect(listed.map((s) => [s.userAgent, s.current]).sort()).toEqual([
      ['Laptop', true],
      ['Phone', false],
    ]);
    expect(JSON.stringify(listed)).not.toMatch(/[0-9a-f]{64}/);
    const other = await callerOf(await signIn(person()));
    await expect(sessions.list(other, octo.login)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    const admin = await callerOf(await signIn(person('admin')));
    expect((await sessions.list(admin, octo.login)).length).toBe(2);
  });

  it('refuses every session, coded, when the database cannot answer: no access on a guess', async () => {
    const octo = person();
    const lost = await target.open();
    const { service, callers } = over(lost);
    const cookie = await signIn(octo, 'Mozilla/5.0', service);
    expect(await whoIs(cookie, callers)).toMatch(admitting(octo));
    await lost.close();
    expect(await whoIs(cookie, callers)).toBe(
      `DEPENDENCY_UNAVAILABLE: the dashboard could not check ${octo.login}'s session in its database: try again`,
    );
  });
});
