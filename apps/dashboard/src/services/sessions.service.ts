import {
  DashboardSessionRepository,
  type DashboardSessionRow,
  type SessionRevocation,
} from '@caravel/db';
import { AppError, isAppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { SessionSealer } from '../auth/session-sealer.js';
import type { Caller, Person, Session } from '../auth/session.types.js';
import { whoseFor } from '../auth/whose.js';

/** A session's last use is noted at most this often (a read per request, a write per five minutes). */
export const SESSION_SEEN_EVERY_MS = 5 * 60_000;
/** How much of a sign-in's User-Agent is kept. */
const USER_AGENT_CHARS = 200;

/** Where a sign-in came from, as far as the dashboard can tell without asking anyone. */
export interface SignInClient {
  userAgent?: string | undefined;
  address?: string | undefined;
}

/** A live session as its person (or an admin) sees it listed: never its id, nor the id's hash. */
export interface SessionView {
  /** The first 16 hex of the id's hash: tells sessions apart in a list, opens nothing. */
  id: string;
  /** The session of the cookie that asked. */
  current: boolean;
  role: Person['role'];
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  userAgent: string | null;
  address: string | null;
}

const hashOf = (sid: string): string => createHash('sha256').update(sid, 'utf8').digest('hex');

const ENDED: Record<SessionRevocation, string> = {
  sign_out: 'this session was signed out',
  everywhere: 'this session ended when its person signed out everywhere',
  admin: 'an admin ended this session',
};

const refused = (why: string) => new AppError('UNAUTHENTICATED', `${why}: sign in again`);

/** Who ends sessions, as the record says: the person, an admin, or the machine token. */
function whoOf(caller: Caller): string {
  return caller.kind === 'machine' ? 'machine' : caller.session.login.toLowerCase();
}

/**
 * Dashboard sessions kept server-side (`dashboard_sessions`), so a sign-in can be ended before
 * it expires: its own sign-out, the person's "sign out everywhere", an admin's. A sign-in gets a
 * random id, sealed into its cookie; only the id's SHA-256 is stored. Each request's cookie is
 * checked by that hash (one lookup by key) and refused once its record is missing, expired or
 * revoked; its last use is noted at most every {@link SESSION_SEEN_EVERY_MS}. Expired records
 * are deleted at each sign-in (docs/dashboard.md). Time is the sealer's clock, which the
 * cookies expire by.
 */
@Injectable()
export class SessionsService {
  constructor(
    @Inject(DashboardSessionRepository) private readonly sessions: DashboardSessionRepository,
    @Inject(SessionSealer) private readonly sealer: SessionSealer,
  ) {}

  /** Records a sign-in of `person` until `expiresAt`: its id, for the sealed cookie alone. */
  async open(person: Person, expiresAt: Date, client: SignInClient): Promise<string> {
    const now = this.now();
    await this.sessions.deleteExpired(now);
    const sid = randomBytes(32).toString('base64url');
    await this.sessions.create({
      idSha256: hashOf(sid),
      login: person.login,
      githubId: person.githubId,
      role: person.role,
      createdAt: now,
      expiresAt,
      userAgent: client.userAgent ? client.userAgent.slice(0, USER_AGENT_CHARS) : null,
      address: client.address ? client.address : null,
    });
    return sid;
  }

  /**
   * Refuses a cookie's session whose record is missing, another person's, expired or ended
   * (UNAUTHENTICATED, saying which). A database that cannot answer refuses it too
   * (DEPENDENCY_UNAVAILABLE): no request passes on a session nobody could check.
   */
  async check(session: Session): Promise<void> {
    const now = this.now();
    if (!session.sid) throw refused('this session cookie names no session');
    const hash = hashOf(session.sid);
    const row = await this.guarded(session.login, () => this.sessions.get(hash));
    if (!row || row.login !== session.login.toLowerCase()) {
      throw refused('this session is unknown to the dashboard (ended and since removed)');
    }
    if (row.revokedReason) throw refused(ENDED[row.revokedReason]);
    if (row.expiresAt <= now) throw refused('this session expired');
    if (row.lastSeenAt.getTime() <= now.getTime() - SESSION_SEEN_EVERY_MS) {
      const before = new Date(now.getTime() - SESSION_SEEN_EVERY_MS);
      await this.guarded(session.login, () => this.sessions.touch(hash, now, before));
    }
  }

  /** Ends the session of the cookie that asked (nothing for a token or the machine). */
  async signOut(caller: Caller): Promise<void> {
    if (caller.kind !== 'person' || !caller.session.sid) return;
    const revocation = { reason: 'sign_out', by: whoOf(caller), at: this.now() } as const;
    await this.sessions.revoke(hashOf(caller.session.sid), revocation);
  }

  /** Ends every session of the signed-in caller, this one too: how many. */
  async signOutEverywhere(caller: Caller): Promise<number> {
    const session = signedIn(caller, 'sign out everywhere');
    const revocation = { reason: 'everywhere', by: whoOf(caller), at: this.now() } as const;
    return this.sessions.revokeAll(session.login, revocation);
  }

  /** An admin (or the machine token, the guard has checked) ends every session of `login`. */
  async endFor(caller: Caller, login: string): Promise<number> {
    return this.sessions.revokeAll(login, { reason: 'admin', by: whoOf(caller), at: this.now() });
  }

  /** Live sessions: the signed-in caller's own, or anyone's for an admin or the machine token. */
  async list(caller: Caller, login?: string): Promise<SessionView[]> {
    const whose = whoseFor(caller, login, 'sessions');
    const current =
      caller.kind === 'person' && caller.session.sid ? hashOf(caller.session.sid) : null;
    return (await this.sessions.listLive(whose, this.now())).map((row) => viewOf(row, current));
  }

  private now(): Date {
    return new Date(this.sealer.now());
  }

  /** `read`, or a coded refusal when the database fails in a way no one coded. */
  private async guarded<T>(login: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (isAppError(error)) throw error;
      throw new AppError(
        'DEPENDENCY_UNAVAILABLE',
        `the dashboard could not check ${login}'s session in its database: try again`,
        { cause: error },
      );
    }
  }
}

/** The signed-in person of a cookie: sessions are ended from a browser, not with a token. */
function signedIn(caller: Caller, what: string): Session {
  if (caller.kind !== 'person' || caller.token) {
    throw new AppError('FORBIDDEN', `${what} from a signed-in browser, not with a token`);
  }
  return caller.session;
}

function viewOf(row: DashboardSessionRow, current: string | null): SessionView {
  const { role, createdAt, lastSeenAt, expiresAt, userAgent, address } = row;
  return {
    id: row.idSha256.slice(0, 16),
    current: row.idSha256 === current,
    role,
    createdAt,
    lastSeenAt,
    expiresAt,
    userAgent,
    address,
  };
}
