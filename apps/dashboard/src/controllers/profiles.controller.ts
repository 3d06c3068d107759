import type { UserProfileRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Body, Controller, Get, Inject, Param, Put, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { ActionGuard, CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { ProfilesService, type ProfileView } from '../services/profiles.service.js';

function identityParam(params: unknown): string {
  const parsed = ROUTES.profile.params.safeParse(params);
  if (!parsed.success) {
    const raw = (params as { identity?: unknown } | null)?.identity;
    throw new AppError('BAD_REQUEST', `invalid identity '${String(raw)}': source:id`);
  }
  return parsed.data.identity;
}

/** A person's own settings: read and replace them (a person their own, admins anyone's). */
@Controller('api')
export class ProfilesController {
  constructor(@Inject(ProfilesService) private readonly profiles: ProfilesService) {}

  @Get('profiles/:identity')
  @UseGuards(ReadGuard)
  get(@Param() params: unknown, @CurrentCaller() caller: Caller | null): Promise<ProfileView> {
    return this.profiles.get(caller, identityParam(params));
  }

  @Put('profiles/:identity')
  @UseGuards(ActionGuard)
  save(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<UserProfileRow> {
    const identity = identityParam(params);
    return this.profiles.save(
      caller,
      identity,
      parseInput(ROUTES.saveProfile.body, body, 'profile'),
    );
  }
}
