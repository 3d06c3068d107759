import type { IdentityRow } from '@caravel/db';
import { Body, Controller, Inject, Param } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { IdentitiesService } from '../services/identities.service.js';

/** The identity map: admins read and change it (docs/dashboard.md). */
@Controller()
export class IdentitiesController {
  constructor(@Inject(IdentitiesService) private readonly identities: IdentitiesService) {}

  @ApiRoute(ROUTES.listIdentities)
  list(): Promise<IdentityRow[]> {
    return this.identities.list();
  }

  @ApiRoute(ROUTES.linkIdentity)
  link(@Body() body: unknown): Promise<IdentityRow> {
    return this.identities.link(parseInput(ROUTES.linkIdentity.body, body, 'identity'));
  }

  @ApiRoute(ROUTES.removeIdentity)
  async remove(@Param() params: unknown): Promise<void> {
    const { id } = parseInput(ROUTES.removeIdentity.params, params, 'identity');
    await this.identities.remove(id);
  }
}
