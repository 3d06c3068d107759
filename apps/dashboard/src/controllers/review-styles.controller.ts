import type { EvalProposalRow, ReviewStyleSummaryRow } from '@caravel/db';
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
import {
  ReviewStylesService,
  type AnalysisRequested,
  type ReviewStyleDetail,
  type ReviewStyleHistory,
} from '../services/review-styles.service.js';

/**
 * Review styles: members read them; admins (and the machine token) ask the analyzer for a
 * bootstrap and propose edits for the reviewer eval gate.
 */
@Controller('api/review-styles')
export class ReviewStylesController {
  constructor(@Inject(ReviewStylesService) private readonly styles: ReviewStylesService) {}

  @Get()
  @UseGuards(ReadGuard)
  list(): Promise<ReviewStyleSummaryRow[]> {
    return this.styles.list();
  }

  @Get(':owner/:name')
  @UseGuards(ReadGuard)
  history(@Param() params: unknown, @Query() query: unknown): Promise<ReviewStyleHistory> {
    const route = ROUTES.reviewStyleHistory;
    const { owner, name } = parseInput(route.params, params, 'repository');
    return this.styles.history(owner, name, parseInput(route.query, query, 'query').limit);
  }

  @Get(':owner/:name/versions/:version')
  @UseGuards(ReadGuard)
  version(@Param() params: unknown): Promise<ReviewStyleDetail> {
    const { owner, name, version } = parseInput(
      ROUTES.reviewStyleVersion.params,
      params,
      'review style version',
    );
    return this.styles.version(owner, name, version);
  }

  @Post(':owner/:name/analyze')
  @HttpCode(202)
  @UseGuards(AdminGuard)
  analyze(@Param() params: unknown, @CurrentCaller() caller: Caller): Promise<AnalysisRequested> {
    const { owner, name } = parseInput(ROUTES.analyzeReviewStyle.params, params, 'repository');
    return this.styles.analyze(caller, owner, name);
  }

  @Post(':owner/:name/proposals')
  @HttpCode(201)
  @UseGuards(AdminGuard)
  propose(
    @Param() params: unknown,
    @Body() body: unknown,
    @CurrentCaller() caller: Caller,
  ): Promise<EvalProposalRow> {
    const route = ROUTES.proposeReviewStyle;
    const { owner, name } = parseInput(route.params, params, 'repository');
    const edit = parseInput(route.body, body, 'style edit');
    return this.styles.propose(caller, owner, name, edit);
  }
}
