import type { RepositoryInstructionsRow, TeamDefaultsRow } from '@caravel/db';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Put,
  UseGuards,
} from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import {
  TeamSettingsService,
  type RepositoryInstructionsView,
  type TeamDefaultsView,
} from '../services/team-settings.service.js';

/** The team's defaults and repositories' instructions: admins only (docs/dashboard.md). */
@Controller('api')
@UseGuards(AdminGuard)
export class TeamSettingsController {
  constructor(@Inject(TeamSettingsService) private readonly team: TeamSettingsService) {}

  @Get('team-defaults')
  teamDefaults(): Promise<TeamDefaultsView> {
    return this.team.teamDefaults();
  }

  @Put('team-defaults')
  saveTeamDefaults(
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<TeamDefaultsRow> {
    const settings = parseInput(ROUTES.saveTeamDefaults.body, body, 'team defaults');
    return this.team.saveTeamDefaults(caller, settings);
  }

  @Get('repository-instructions')
  listInstructions(): Promise<RepositoryInstructionsRow[]> {
    return this.team.listInstructions();
  }

  @Get('repository-instructions/:owner/:name')
  instructions(@Param() params: unknown): Promise<RepositoryInstructionsView> {
    const { owner, name } = parseInput(ROUTES.repositoryInstructions.params, params, 'repository');
    return this.team.instructionsOf(owner, name);
  }

  @Put('repository-instructions/:owner/:name')
  saveInstructions(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<RepositoryInstructionsRow> {
    const route = ROUTES.saveRepositoryInstructions;
    const { owner, name } = parseInput(route.params, params, 'repository');
    const { instructions } = parseInput(route.body, body, 'repository instructions');
    return this.team.saveInstructions(caller, owner, name, instructions);
  }

  @Delete('repository-instructions/:owner/:name')
  @HttpCode(204)
  async removeInstructions(@Param() params: unknown): Promise<void> {
    const route = ROUTES.removeRepositoryInstructions;
    const { owner, name } = parseInput(route.params, params, 'repository');
    await this.team.removeInstructions(owner, name);
  }
}
