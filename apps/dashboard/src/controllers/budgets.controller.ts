import type { BudgetLimitRow } from '@caravel/db';
import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Inject,
  Param,
  Put,
  Query,
  UseGuards,
} from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { BudgetsService, type BudgetPauseView } from '../services/budgets.service.js';

/** Budget limits and paused runs: everyone reads them, admins change limits (docs/dashboard.md). */
@Controller('api/budgets')
export class BudgetsController {
  constructor(@Inject(BudgetsService) private readonly budgets: BudgetsService) {}

  @Get()
  @UseGuards(ReadGuard)
  list(): Promise<BudgetLimitRow[]> {
    return this.budgets.list();
  }

  @Get('pauses')
  @UseGuards(ReadGuard)
  pauses(): Promise<BudgetPauseView[]> {
    return this.budgets.pausesOpen();
  }

  @Put(':scope')
  @UseGuards(AdminGuard)
  save(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<BudgetLimitRow> {
    const { scope } = parseInput(ROUTES.budgetsSave.params, params, 'budget scope');
    const limit = parseInput(ROUTES.budgetsSave.body, body, 'budget');
    return this.budgets.save(caller, scope, limit);
  }

  @Delete(':scope')
  @HttpCode(204)
  @UseGuards(AdminGuard)
  async remove(@Param() params: unknown, @Query() query: unknown): Promise<void> {
    const { scope } = parseInput(ROUTES.budgetsRemove.params, params, 'budget scope');
    const { subject } = parseInput(ROUTES.budgetsRemove.query, query, 'budget');
    await this.budgets.remove(scope, subject);
  }
}
