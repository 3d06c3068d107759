import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { ReadGuard } from '../auth/guards.js';
import {
  ReviewLedgerService,
  type ReviewedPullRequestView,
  type ReviewLedgerView,
} from '../services/review-ledger.service.js';

/** Pull requests' review ledgers: every finding, Caravel's, people's and other bots'. */
@Controller('api/reviews')
@UseGuards(ReadGuard)
export class ReviewsController {
  constructor(@Inject(ReviewLedgerService) private readonly ledgers: ReviewLedgerService) {}

  @Get()
  list(@Query() query: unknown): Promise<ReviewedPullRequestView[]> {
    return this.ledgers.list(parseInput(ROUTES.listReviews.query, query, 'query'));
  }

  @Get(':owner/:name/:number')
  ledger(@Param() params: unknown, @Query() query: unknown): Promise<ReviewLedgerView> {
    const { owner, name, number } = parseInput(ROUTES.reviewLedger.params, params, 'pull request');
    const { status } = parseInput(ROUTES.reviewLedger.query, query, 'query');
    return this.ledgers.ledger({ owner, repo: name, number }, status);
  }
}
