import type { EvalProposalRow } from '@caravel/db';
import {
  Body,
  Controller,
  Get,
  HttpCode,
  Inject,
  Param,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { EvalsService, type EvalRunDetail, type EvalRunView } from '../services/evals.service.js';

/**
 * Private evals: recorded runs (suites and reviewer runs) and the gate's proposals
 * (docs/dashboard.md#private-evals); scheduled suites are `EvalSchedulesController`'s.
 */
@Controller('api/evals')
export class EvalsController {
  constructor(@Inject(EvalsService) private readonly evals: EvalsService) {}

  @Get('runs')
  @UseGuards(ReadGuard)
  listRuns(@Query() query: unknown): Promise<EvalRunView[]> {
    return this.evals.listRuns(parseInput(ROUTES.listEvalRuns.query, query, 'query'));
  }

  @Get('runs/:id')
  @UseGuards(ReadGuard)
  run(@Param() params: unknown): Promise<EvalRunDetail> {
    return this.evals.run(parseInput(ROUTES.evalRun.params, params, 'eval run').id);
  }

  @Get('proposals')
  @UseGuards(ReadGuard)
  listProposals(@Query() query: unknown): Promise<EvalProposalRow[]> {
    return this.evals.listProposals(parseInput(ROUTES.listEvalProposals.query, query, 'query'));
  }

  @Post('proposals')
  @HttpCode(201)
  @UseGuards(AdminGuard)
  propose(@Body() body: unknown, @CurrentCaller() caller: Caller): Promise<EvalProposalRow> {
    return this.evals.propose(caller, parseInput(ROUTES.proposeEvalChange.body, body, 'proposal'));
  }
}
