import type { RepositoryInstructionsRow, TeamDefaultsRow } from '@caravel/db';
import { Body, Controller, Inject, Param } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import {
  TeamSettingsService,
  type RepositoryInstructionsView,
  type SupportedModel,
  type TeamDefaultsView,
} from '../services/team-settings.service.js';

/**
 * The team's defaults and repositories' instructions (admins only), and the supported models
 * their settings name (docs/dashboard.md).
 */
@Controller()
export class TeamSettingsController {
  constructor(@Inject(TeamSettingsService) private readonly team: TeamSettingsService) {}

  @ApiRoute(ROUTES.supportedModels)
  supportedModels(): SupportedModel[] {
    return this.team.supportedModels();
  }

  @ApiRoute(ROUTES.teamDefaults)
  teamDefaults(): Promise<TeamDefaultsView> {
    return this.team.teamDefaults();
  }

  @ApiRoute(ROUTES.saveTeamDefaults)
  saveTeamDefaults(
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<TeamDefaultsRow> {
    const settings = parseInput(ROUTES.saveTeamDefaults.body, body, 'team defaults');
    return this.team.saveTeamDefaults(caller, settings);
  }

  @ApiRoute(ROUTES.listRepositoryInstructions)
  listInstructions(): Promise<RepositoryInstructionsRow[]> {
    return this.team.listInstructions();
  }

  @ApiRoute(ROUTES.repositoryInstructions)
  instructions(@Param() params: unknown): Promise<RepositoryInstructionsView> {
    const { owner, name } = parseInput(ROUTES.repositoryInstructions.params, params, 'repository');
    return this.team.instructionsOf(owner, name);
  }

  @ApiRoute(ROUTES.saveRepositoryInstructions)
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

  @ApiRoute(ROUTES.removeRepositoryInstructions)
  async removeInstructions(@Param() params: unknown): Promise<void> {
    const route = ROUTES.removeRepositoryInstructions;
    const { owner, name } = parseInput(route.params, params, 'repository');
    await this.team.removeInstructions(owner, name);
  }
}
