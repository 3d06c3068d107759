import type { EnabledRepositoryRow } from '@caravel/db';
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
import { AdminGuard, CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { EnabledRepositoriesService } from '../services/enabled-repositories.service.js';

/** The enabled repositories: everyone reads them, admins change them. */
@Controller('api/repositories')
export class RepositoriesController {
  constructor(
    @Inject(EnabledRepositoriesService) private readonly repositories: EnabledRepositoriesService,
  ) {}

  @Get()
  @UseGuards(ReadGuard)
  list(): Promise<EnabledRepositoryRow[]> {
    return this.repositories.list();
  }

  @Put(':owner/:name')
  @UseGuards(AdminGuard)
  save(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<EnabledRepositoryRow> {
    const { owner, name } = parseInput(ROUTES.saveRepository.params, params, 'repository');
    const settings = parseInput(ROUTES.saveRepository.body, body, 'repository settings');
    return this.repositories.save(caller, owner, name, settings);
  }

  @Delete(':owner/:name')
  @HttpCode(204)
  @UseGuards(AdminGuard)
  async remove(@Param() params: unknown): Promise<void> {
    const { owner, name } = parseInput(ROUTES.removeRepository.params, params, 'repository');
    await this.repositories.remove(owner, name);
  }
}
