import type { UserProfileRow } from '@caravel/db';
import { Body, Controller, Inject, Param, Put, UseGuards } from '@nestjs/common';
import { ActionTokenGuard } from '../http/action-token.guard.js';
import { ProfilesService } from '../services/profiles.service.js';

/** `PUT /api/profiles/:identity`: a person's own settings, behind `DASHBOARD_TOKEN`. */
@Controller('api')
@UseGuards(ActionTokenGuard)
export class ProfilesController {
  constructor(@Inject(ProfilesService) private readonly profiles: ProfilesService) {}

  @Put('profiles/:identity')
  save(@Param('identity') identity: string, @Body() body: unknown): Promise<UserProfileRow> {
    return this.profiles.save(identity, body);
  }
}
