import type { BudgetLimitRow } from '@caravel/db';
import { parseRepository } from '@caravel/integrations';
import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { BudgetsService, type BudgetPauseView } from '../services/budgets.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/**
 * Budget limits and paused runs: everyone reads them (a member only the limits of repositories and
 * the pauses of threads they may see), admins change limits (docs/dashboard.md).
 */
@Controller()
export class BudgetsController {
  constructor(
    @Inject(BudgetsService) private readonly budgets: BudgetsService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
  ) {}

  @ApiRoute(ROUTES.budgets)
  async list(@CurrentCaller() caller: Caller | null): Promise<BudgetLimitRow[]> {
    return this.visible.ofVisibleRepositories(caller, await this.budgets.list(), (limit) =>
      limit.scope === 'repository' ? parseRepository(limit.subject) : null,
    );
  }

  @ApiRoute(ROUTES.budgetsPauses)
  async pauses(@CurrentCaller() caller: Caller | null): Promise<BudgetPauseView[]> {
    return this.visible.ofVisibleThreads(caller, await this.budgets.pausesOpen());
  }

  @ApiRoute(ROUTES.budgetsSave)
  save(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<BudgetLimitRow> {
    const { scope } = parseInput(ROUTES.budgetsSave.params, params, 'budget scope');
    const limit = parseInput(ROUTES.budgetsSave.body, body, 'budget');
    return this.budgets.save(caller, scope, limit);
  }

  @ApiRoute(ROUTES.budgetsRemove)
  async remove(@Param() params: unknown, @Query() query: unknown): Promise<void> {
    const { scope } = parseInput(ROUTES.budgetsRemove.params, params, 'budget scope');
    const { subject } = parseInput(ROUTES.budgetsRemove.query, query, 'budget');
    await this.budgets.remove(scope, subject);
  }
}
