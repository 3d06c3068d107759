import type { EvalProposalRow } from '@caravel/db';
import { parseRepository } from '@caravel/integrations';
import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { EvalsService, type EvalRunDetail, type EvalRunView } from '../services/evals.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/**
 * Private evals: recorded runs (suites and reviewer runs) and the gate's proposals
 * (docs/dashboard.md#private-evals); scheduled suites are `EvalSchedulesController`'s. A review
 * style's proposal carries a prompt learned from its repository: a member sees it only where
 * they may see the repository.
 */
@Controller()
export class EvalsController {
  constructor(
    @Inject(EvalsService) private readonly evals: EvalsService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
  ) {}

  @ApiRoute(ROUTES.listEvalRuns)
  listRuns(@Query() query: unknown): Promise<EvalRunView[]> {
    return this.evals.listRuns(parseInput(ROUTES.listEvalRuns.query, query, 'query'));
  }

  @ApiRoute(ROUTES.evalRun)
  run(@Param() params: unknown): Promise<EvalRunDetail> {
    return this.evals.run(parseInput(ROUTES.evalRun.params, params, 'eval run').id);
  }

  @ApiRoute(ROUTES.listEvalProposals)
  async listProposals(
    @Query() query: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<EvalProposalRow[]> {
    const proposals = await this.evals.listProposals(
      parseInput(ROUTES.listEvalProposals.query, query, 'query'),
    );
    return this.visible.ofVisibleRepositories(caller, proposals, ({ repository }) =>
      repository === null ? null : parseRepository(repository),
    );
  }

  @ApiRoute(ROUTES.proposeEvalChange)
  propose(@Body() body: unknown, @CurrentCaller() caller: Caller): Promise<EvalProposalRow> {
    return this.evals.propose(caller, parseInput(ROUTES.proposeEvalChange.body, body, 'proposal'));
  }
}
