import { Controller, HttpCode, Inject, Param, Post, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { AdminGuard, CurrentCaller } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import { ReviewStylesService, type AnalysisRequested } from '../services/review-styles.service.js';

/** Review styles: admins (and the machine token) ask the analyzer for a bootstrap. */
@Controller('api/review-styles')
export class ReviewStylesController {
  constructor(@Inject(ReviewStylesService) private readonly styles: ReviewStylesService) {}

  @Post(':owner/:name/analyze')
  @HttpCode(202)
  @UseGuards(AdminGuard)
  analyze(@Param() params: unknown, @CurrentCaller() caller: Caller): Promise<AnalysisRequested> {
    const { owner, name } = parseInput(ROUTES.analyzeReviewStyle.params, params, 'repository');
    return this.styles.analyze(caller, owner, name);
  }
}
