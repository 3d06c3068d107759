import type { EvalScheduleRow } from '@caravel/db';
import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import {
  EvalSchedulesService,
  type EvalScheduleHistory,
} from '../services/evals-schedules.service.js';

/** Scheduled eval suites: admins register and change them, readers see their history. */
@Controller()
export class EvalSchedulesController {
  constructor(@Inject(EvalSchedulesService) private readonly schedules: EvalSchedulesService) {}

  @ApiRoute(ROUTES.listEvalSchedules)
  list(): Promise<EvalScheduleRow[]> {
    return this.schedules.list();
  }

  @ApiRoute(ROUTES.registerEvalSchedule)
  register(@Body() body: unknown, @CurrentCaller() caller: Caller): Promise<EvalScheduleRow> {
    return this.schedules.register(
      caller,
      parseInput(ROUTES.registerEvalSchedule.body, body, 'scheduled suite'),
    );
  }

  @ApiRoute(ROUTES.changeEvalSchedule)
  change(@Param() params: unknown, @Body() body: unknown): Promise<EvalScheduleRow> {
    return this.schedules.change(
      parseInput(ROUTES.changeEvalSchedule.params, params, 'scheduled suite').id,
      parseInput(ROUTES.changeEvalSchedule.body, body, 'change'),
    );
  }

  @ApiRoute(ROUTES.evalScheduleHistory)
  history(@Param() params: unknown, @Query() query: unknown): Promise<EvalScheduleHistory> {
    const { id } = parseInput(ROUTES.evalScheduleHistory.params, params, 'scheduled suite');
    const { limit } = parseInput(ROUTES.evalScheduleHistory.query, query, 'query');
    return this.schedules.history(id, limit);
  }
}
