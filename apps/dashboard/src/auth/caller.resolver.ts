import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { DASHBOARD_CONFIG, type DashboardConfig } from '../dashboard.config.js';
import { mayStillSignIn, roleNow } from './admission.js';
import { parseCookies, SESSION_COOKIE } from './cookies.js';
import { PersonalTokensService } from '../services/personal-tokens.service.js';
import { isPersonalToken } from './personal-token.js';
import { SessionSealer } from './session-sealer.js';
import type { AuthRequest, Caller } from './session.types.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Who sent a request. A bearer header is a person's API token (`cvt_…`, checked against its
 * stored hash, live, unrevoked, and its owner still one the configuration may let in) or the machine credential `DASHBOARD_TOKEN` (compared as
 * digests in constant time); a wrong one is refused, not treated as anonymous. Otherwise the
 * session cookie, when it opens, has not expired and the running configuration still lets its
 * person in (with the role it gives them now: {@link roleNow}); otherwise nobody (null).
 */
@Injectable()
export class CallerResolver {
  constructor(
    @Inject(DASHBOARD_CONFIG) private readonly config: DashboardConfig,
    @Inject(SessionSealer) private readonly sealer: SessionSealer,
    @Inject(PersonalTokensService) private readonly tokens: PersonalTokensService,
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
    const role = session ? roleNow(this.config.signIn, session) : null;
    return session && role ? { kind: 'person', session: { ...session, role } } : null;
  }

  /** A personal token's person, refused once the running configuration lets them in no more. */
  private async personalToken(presented: string): Promise<Caller> {
    const caller = await this.tokens.authenticate(presented);
    const login = caller.kind === 'person' ? caller.session.login : null;
    if (login !== null && !mayStillSignIn(this.config.signIn, login)) {
      throw new AppError(
        'UNAUTHENTICATED',
        `this personal token is ${login}'s, whom the dashboard no longer lets sign in: ask an admin`,
      );
    }
    return caller;
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
