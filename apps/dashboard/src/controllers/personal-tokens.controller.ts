import { AppError } from '@caravel/errors';
import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller, Session } from '../auth/session.types.js';
import {
  PersonalTokensService,
  type PersonalTokenView,
} from '../services/personal-tokens.service.js';

/** The person who makes a token: signed in, not with a token (a token never makes tokens). */
function makerOf(caller: Caller | null): Session {
  if (caller?.kind !== 'person') {
    throw new AppError('FORBIDDEN', 'API tokens belong to people: sign in to the dashboard');
  }
  if (caller.token) {
    throw new AppError('FORBIDDEN', 'a token cannot make tokens: sign in to the dashboard');
  }
  return caller.session;
}

/** The caller of a list or a revocation (the guards let nobody through only while reads are open). */
function callerOf(caller: Caller | null): Caller {
  if (!caller)
    throw new AppError('FORBIDDEN', 'API tokens belong to people: sign in to the dashboard');
  return caller;
}

/** People's API tokens: their own, and anyone's for admins and the machine token (docs/dashboard.md). */
@Controller()
export class PersonalTokensController {
  constructor(@Inject(PersonalTokensService) private readonly tokens: PersonalTokensService) {}

  @ApiRoute(ROUTES.listTokens)
  list(
    @Query() raw: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<PersonalTokenView[]> {
    const { login } = parseInput(ROUTES.listTokens.query, raw, 'query');
    return this.tokens.list(callerOf(caller), login);
  }

  @ApiRoute(ROUTES.createToken)
  create(
    @Body() body: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<PersonalTokenView & { token: string }> {
    const owner = makerOf(caller);
    return this.tokens.create(owner, parseInput(ROUTES.createToken.body, body, 'token'));
  }

  @ApiRoute(ROUTES.revokeToken)
  async revoke(@Param() params: unknown, @CurrentCaller() caller: Caller | null): Promise<void> {
    const { id } = parseInput(ROUTES.revokeToken.params, params, 'token');
    await this.tokens.revoke(callerOf(caller), id);
  }
}
