import type { EnabledRepositoryRow } from '@caravel/db';
import { Body, Controller, Inject, Param } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { EnabledRepositoriesService } from '../services/enabled-repositories.service.js';

/** The enabled repositories: everyone reads them, admins change them. */
@Controller()
export class RepositoriesController {
  constructor(
    @Inject(EnabledRepositoriesService) private readonly repositories: EnabledRepositoriesService,
  ) {}

  @ApiRoute(ROUTES.listRepositories)
  list(): Promise<EnabledRepositoryRow[]> {
    return this.repositories.list();
  }

  @ApiRoute(ROUTES.saveRepository)
  save(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<EnabledRepositoryRow> {
    const { owner, name } = parseInput(ROUTES.saveRepository.params, params, 'repository');
    const settings = parseInput(ROUTES.saveRepository.body, body, 'repository settings');
    return this.repositories.save(caller, owner, name, settings);
  }

  @ApiRoute(ROUTES.removeRepository)
  async remove(@Param() params: unknown): Promise<void> {
    const { owner, name } = parseInput(ROUTES.removeRepository.params, params, 'repository');
    await this.repositories.remove(owner, name);
  }
}
