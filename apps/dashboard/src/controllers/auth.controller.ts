import { AppError, isAppError } from '@caravel/errors';
import {
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseGuards,
} from '@nestjs/common';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import type { authStatusResponse, meResponse, signInRefusalResponse } from '../api/schemas.js';
import { CallerResolver } from '../auth/caller.resolver.js';
import { ActionGuard, CurrentCaller, ReadGuard } from '../auth/guards.js';
import { OriginPolicy } from '../auth/origin-policy.js';
import type { Caller } from '../auth/session.types.js';
import { SignInService, type SignInStep } from '../auth/sign-in.service.js';

function redirect(response: Response, step: SignInStep): void {
  response.setHeader('Set-Cookie', step.cookies);
  response.setHeader('Cache-Control', 'no-store');
  response.redirect(302, step.location);
}

/** "Sign in with GitHub", the session's end, who is signed in, and an admin's release of a pin. */
@Controller()
export class AuthController {
  constructor(
    @Inject(SignInService) private readonly signIn: SignInService,
    @Inject(CallerResolver) private readonly callers: CallerResolver,
    @Inject(OriginPolicy) private readonly origins: OriginPolicy,
  ) {}

  @Get('api/auth')
  async status(@Req() request: Request): Promise<z.output<typeof authStatusResponse>> {
    let signedIn = false;
    try {
      signedIn = (await this.callers.resolve(request))?.kind === 'person';
    } catch {
      signedIn = false;
    }
    return { signInEnabled: this.signIn.enabled, signedIn };
  }

  @Get('api/auth/refusal')
  refusal(@Query() raw: unknown): z.output<typeof signInRefusalResponse> {
    const { sealed } = parseInput(ROUTES.signInRefusal.query, raw, 'query');
    return this.signIn.refusal(sealed);
  }

  @Get('api/me')
  @UseGuards(ReadGuard)
  me(@CurrentCaller() caller: Caller | null): z.output<typeof meResponse> {
    if (caller?.kind !== 'person') {
      throw new AppError('UNAUTHENTICATED', 'nobody is signed in (the machine token is no person)');
    }
    const { login, name, avatarUrl, role, expiresAt } = caller.session;
    return { login, name, avatarUrl, role, expiresAt: new Date(expiresAt).toISOString() };
  }

  @Get('auth/github')
  start(@Req() request: Request, @Res() response: Response): void {
    redirect(response, this.signIn.start(this.origins.ownOrigin(request)));
  }

  @Get(ROUTES.signInCallback.path)
  async callback(
    @Req() request: Request,
    @Res() response: Response,
    @Query() raw: unknown,
  ): Promise<void> {
    try {
      const query = parseInput(ROUTES.signInCallback.query, raw, 'callback');
      const origin = this.origins.ownOrigin(request);
      const client = { userAgent: request.headers['user-agent'], address: request.ip };
      const step = await this.signIn.finish(query, request.headers.cookie, origin, client);
      redirect(response, step);
    } catch (error) {
      if (!isAppError(error)) throw error;
      response.setHeader('Cache-Control', 'no-store');
      response.redirect(302, this.signIn.refusedPage(error));
    }
  }

  @ApiRoute(ROUTES.releaseSignInPin)
  async releasePin(@Param() params: unknown): Promise<void> {
    const { login } = parseInput(ROUTES.releaseSignInPin.params, params, 'login');
    await this.signIn.releasePin(login);
  }

  @Post('auth/sign-out')
  @HttpCode(204)
  @UseGuards(ActionGuard)
  async signOut(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
    @CurrentCaller() caller: Caller | null,
  ): Promise<void> {
    const cookie = await this.signIn.signOut(caller, this.origins.ownOrigin(request));
    response.setHeader('Set-Cookie', cookie);
  }
}
