import { Controller, Get, Inject, Query, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { ReadGuard } from '../auth/guards.js';
import { OpsService, type OpsView } from '../services/ops.service.js';

/** Ops and cost over a window of days (docs/dashboard.md#ops-and-cost). */
@Controller('api/ops')
@UseGuards(ReadGuard)
export class OpsController {
  constructor(@Inject(OpsService) private readonly ops: OpsService) {}

  @Get()
  summary(@Query() query: unknown): Promise<OpsView> {
    return this.ops.summary(parseInput(ROUTES.ops.query, query, 'query'));
  }
}
