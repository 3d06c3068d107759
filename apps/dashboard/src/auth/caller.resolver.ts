import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { DASHBOARD_CONFIG, type DashboardConfig } from '../dashboard.config.js';
import { listedRole, standingNow } from './admission.js';
import { parseCookies, SESSION_COOKIE } from './cookies.js';
import { PersonalTokensService } from '../services/personal-tokens.service.js';
import { SessionsService } from '../services/sessions.service.js';
import { OrgAdmissionCheck } from './org-admission.check.js';
import { isPersonalToken } from './personal-token.js';
import { SessionSealer } from './session-sealer.js';
import type { AuthRequest, Caller, Role, Session } from './session.types.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Who sent a request. A bearer header is a person's API token (`cvt_…`, checked against its
 * stored hash, live, unrevoked, and its owner still one the dashboard would let sign in) or the
 * machine credential `DASHBOARD_TOKEN` (compared as digests in constant time); a wrong one is
 * refused, not treated as anonymous. Otherwise the session cookie, when it opens and has not
 * expired: its server-side record must be live (not signed out, not ended by its person or an
 * admin: {@link SessionsService.check}, refused with 401, or 503 when the database cannot say)
 * and the running configuration must still let its person in (listed, or through an organisation
 * GitHub says they still belong to: {@link standingNow}, {@link OrgAdmissionCheck}), with the
 * role that gives them now; no cookie, or one that does not open, is nobody (null).
 */
@Injectable()
export class CallerResolver {
  constructor(
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
    @Inject(SessionSealer) private readonly sealer: SessionSealer,
    @Inject(PersonalTokensService) private readonly tokens: PersonalTokensService,
    @Inject(OrgAdmissionCheck) private readonly orgs: OrgAdmissionCheck,
    @Inject(SessionsService) private readonly sessions: SessionsService,
  ) {}

  async resolve(request: AuthRequest): Promise<Caller | null> {
    const authorization = request.headers['authorization'];
    if (typeof authorization === 'string' && authorization.trim() !== '') {
      const presented = authorization.replace(/^Bearer\s+/i, '');
      if (isPersonalToken(presented)) return this.personalToken(presented);
      return this.machine(presented);
    }
    const session = this.sealer.openSession(
      parseCookies(request.headers['cookie']).get(SESSION_COOKIE),
    );
    if (!session) return null;
    await this.sessions.check(session);
    const role = await this.roleNow(session);
    return role ? { kind: 'person', session: { ...session, role } } : null;
  }

  private async roleNow(session: Session): Promise<Role | null> {
    const standing = standingNow(this.config.signIn, session);
    if (!standing) return null;
    if ('role' in standing) return standing.role;
    return this.orgs.roleIn(standing.org, session.login, session.role);
  }

  /** A personal token's person, refused once they could not sign in any more. */
  private async personalToken(presented: string): Promise<Caller> {
    const caller = await this.tokens.authenticate(presented);
    const login = caller.kind === 'person' ? caller.session.login : null;
    if (login !== null && !(await this.mayStillSignIn(login))) {
      throw new AppError(
        'UNAUTHENTICATED',
        `this personal token is ${login}'s, whom the dashboard no longer lets sign in: ask an admin`,
      );
    }
    return caller;
  }

  /** Listed, or an active member of an allowed organisation (as GitHub says now). */
  private async mayStillSignIn(login: string): Promise<boolean> {
    const rules = this.config.signIn;
    return listedRole(rules, login) !== null || this.orgs.activeInAny(rules.allowedOrgs, login);
  }

  private machine(presented: string): Caller {
    const expected = this.config.machineToken;
    if (!expected || !timingSafeEqual(digest(expected), digest(presented))) {
      throw new AppError(
        'UNAUTHENTICATED',
        expected
          ? 'a valid dashboard token is required (Authorization: Bearer …)'
          : 'machine access is off: set DASHBOARD_TOKEN to enable it',
      );
    }
    return { kind: 'machine' };
  }
}
