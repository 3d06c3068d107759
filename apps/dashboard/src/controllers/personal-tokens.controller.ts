import { AppError } from '@caravel/errors';
import { Body, Controller, Inject, Param } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller, Session } from '../auth/session.types.js';
import {
  PersonalTokensService,
  type PersonalTokenView,
} from '../services/personal-tokens.service.js';

/** The person a token route is for: signed in (a token may list and revoke, never make one). */
function personOf(caller: Caller | null, making = false): Session {
  if (caller?.kind !== 'person') {
    throw new AppError('FORBIDDEN', 'API tokens belong to people: sign in to the dashboard');
  }
  if (making && caller.token) {
    throw new AppError('FORBIDDEN', 'a token cannot make tokens: sign in to the dashboard');
  }
  return caller.session;
}

/** A signed-in person's own API tokens (docs/dashboard.md). */
@Controller()
export class PersonalTokensController {
  constructor(@Inject(PersonalTokensService) private readonly tokens: PersonalTokensService) {}

  @ApiRoute(ROUTES.listTokens)
  list(@CurrentCaller() caller: Caller | null): Promise<PersonalTokenView[]> {
    return this.tokens.list(personOf(caller).login);
  }

  @ApiRoute(ROUTES.createToken)
  create(
    @Body() body: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<PersonalTokenView & { token: string }> {
    const owner = personOf(caller, true);
    return this.tokens.create(owner, parseInput(ROUTES.createToken.body, body, 'token'));
  }

  @ApiRoute(ROUTES.revokeToken)
  async revoke(@Param() params: unknown, @CurrentCaller() caller: Caller | null): Promise<void> {
    const { id } = parseInput(ROUTES.revokeToken.params, params, 'token');
    await this.tokens.revoke(personOf(caller).login, id);
  }
}
