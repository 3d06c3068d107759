import type { EvalProposalRow, ReviewStyleSummaryRow } from '@caravel/db';
import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
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
@Controller()
export class ReviewStylesController {
  constructor(@Inject(ReviewStylesService) private readonly styles: ReviewStylesService) {}

  @ApiRoute(ROUTES.listReviewStyles)
  list(): Promise<ReviewStyleSummaryRow[]> {
    return this.styles.list();
  }

  @ApiRoute(ROUTES.reviewStyleHistory)
  history(@Param() params: unknown, @Query() query: unknown): Promise<ReviewStyleHistory> {
    const route = ROUTES.reviewStyleHistory;
    const { owner, name } = parseInput(route.params, params, 'repository');
    return this.styles.history(owner, name, parseInput(route.query, query, 'query').limit);
  }

  @ApiRoute(ROUTES.reviewStyleVersion)
  version(@Param() params: unknown): Promise<ReviewStyleDetail> {
    const { owner, name, version } = parseInput(
      ROUTES.reviewStyleVersion.params,
      params,
      'review style version',
    );
    return this.styles.version(owner, name, version);
  }

  @ApiRoute(ROUTES.analyzeReviewStyle)
  analyze(@Param() params: unknown, @CurrentCaller() caller: Caller): Promise<AnalysisRequested> {
    const { owner, name } = parseInput(ROUTES.analyzeReviewStyle.params, params, 'repository');
    return this.styles.analyze(caller, owner, name);
  }

  @ApiRoute(ROUTES.proposeReviewStyle)
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
