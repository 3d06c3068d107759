import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import { DASHBOARD_CONFIG, type DashboardConfig } from '../dashboard.config.js';
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
 * stored hash, live and unrevoked) or the machine credential `DASHBOARD_TOKEN` (compared as
 * digests in constant time); a wrong one is refused, not treated as anonymous. Otherwise the
 * session cookie, when it opens and has not expired; otherwise nobody (null).
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
      if (isPersonalToken(presented)) return this.tokens.authenticate(presented);
      return this.machine(presented);
    }
    const session = this.sealer.openSession(
      parseCookies(request.headers['cookie']).get(SESSION_COOKIE),
    );
    return session ? { kind: 'person', session } : null;
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
