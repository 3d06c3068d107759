import type { EvalProposalRow, ReviewStyleSummaryRow } from '@caravel/db';
import { parseRepository } from '@caravel/integrations';
import { Body, Controller, Inject, Param, Query } from '@nestjs/common';
import { ApiRoute } from '../api/api-route.js';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import {
  noReviewStyle,
  ReviewStylesService,
  type AnalysisRequested,
  type ReviewStyleDetail,
  type ReviewStyleHistory,
} from '../services/review-styles.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/**
 * Review styles: members read those of the repositories they may see (a style is learned from the
 * repository's review comments, so another's is a 404, as one never learned); admins (and the
 * machine token) ask the analyzer for a bootstrap and propose edits for the reviewer eval gate.
 */
@Controller()
export class ReviewStylesController {
  constructor(
    @Inject(ReviewStylesService) private readonly styles: ReviewStylesService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
  ) {}

  @ApiRoute(ROUTES.listReviewStyles)
  async list(@CurrentCaller() caller: Caller | null): Promise<ReviewStyleSummaryRow[]> {
    return this.visible.ofVisibleRepositories(caller, await this.styles.list(), (style) =>
      parseRepository(style.repository),
    );
  }

  @ApiRoute(ROUTES.reviewStyleHistory)
  async history(
    @Param() params: unknown,
    @Query() query: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<ReviewStyleHistory> {
    const route = ROUTES.reviewStyleHistory;
    const { owner, name } = parseInput(route.params, params, 'repository');
    const { limit } = parseInput(route.query, query, 'query');
    await this.visible.repository(caller, { owner, name }, noReviewStyle(`${owner}/${name}`));
    return this.styles.history(owner, name, limit);
  }

  @ApiRoute(ROUTES.reviewStyleVersion)
  async version(
    @Param() params: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<ReviewStyleDetail> {
    const { owner, name, version } = parseInput(
      ROUTES.reviewStyleVersion.params,
      params,
      'review style version',
    );
    const hidden = noReviewStyle(`${owner}/${name}`, version);
    await this.visible.repository(caller, { owner, name }, hidden);
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
