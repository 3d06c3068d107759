import { AppError } from '@caravel/errors';
import { Controller, Inject, Param, Query, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import { OriginPolicy } from '../auth/origin-policy.js';
import type { Caller } from '../auth/session.types.js';
import { SignInService } from '../auth/sign-in.service.js';
import { SessionsService, type SessionView } from '../services/sessions.service.js';

/** The caller (the guards let nobody through only while reads are open, with no sign-in). */
function callerOf(caller: Caller | null): Caller {
  if (!caller)
    throw new AppError('FORBIDDEN', 'sessions belong to people: sign in to the dashboard');
  return caller;
}

/** People's dashboard sessions: their own, and anyone's for admins and the machine token. */
@Controller()
export class SessionsController {
  constructor(
    @Inject(SessionsService) private readonly sessions: SessionsService,
    @Inject(SignInService) private readonly signIn: SignInService,
    @Inject(OriginPolicy) private readonly origins: OriginPolicy,
  ) {}

  @ApiRoute(ROUTES.listSessions)
  list(@Query() raw: unknown, @CurrentCaller() caller: Caller | null): Promise<SessionView[]> {
    const { login } = parseInput(ROUTES.listSessions.query, raw, 'query');
    return this.sessions.list(callerOf(caller), login);
  }

  @ApiRoute(ROUTES.signOutEverywhere)
  async signOutEverywhere(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @CurrentCaller() caller: Caller | null,
  ): Promise<{ ended: number }> {
    const ended = await this.sessions.signOutEverywhere(callerOf(caller));
    response.setHeader('Set-Cookie', this.signIn.signOutCookie(this.origins.ownOrigin(request)));
    return { ended };
  }

  @ApiRoute(ROUTES.endSessions)
  async end(
    @Param() params: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<{ ended: number }> {
    const { login } = parseInput(ROUTES.endSessions.params, params, 'login');
    return { ended: await this.sessions.endFor(callerOf(caller), login) };
  }
}
