import type { EnabledRepositoryRow } from '@caravel/db';
import { parseRepository } from '@caravel/integrations';
import { Body, Controller, Inject, Param } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { EnabledRepositoriesService } from '../services/enabled-repositories.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/**
 * The enabled repositories: everyone reads those they may see (a private repository's name is
 * not shown to a member GitHub keeps out of it), admins change them.
 */
@Controller()
export class RepositoriesController {
  constructor(
    @Inject(EnabledRepositoriesService) private readonly repositories: EnabledRepositoriesService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
  ) {}

  @ApiRoute(ROUTES.listRepositories)
  async list(@CurrentCaller() caller: Caller | null): Promise<EnabledRepositoryRow[]> {
    return this.visible.ofVisibleRepositories(caller, await this.repositories.list(), (row) =>
      parseRepository(row.repository),
    );
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
