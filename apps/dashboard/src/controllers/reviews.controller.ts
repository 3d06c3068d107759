import { Controller, Get, Inject, Param, Query, UseGuards } from '@nestjs/common';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { CurrentCaller, ReadGuard } from '../auth/guards.js';
import type { Caller } from '../auth/session.types.js';
import {
  ReviewLedgerService,
  type ReviewedPullRequestView,
  type ReviewLedgerView,
} from '../services/review-ledger.service.js';
import { VisibleThreadsService } from '../services/visible-threads.service.js';

/**
 * Pull requests' review ledgers: every finding, Caravel's, people's and other bots'; only of the
 * repositories the caller may see (another's ledger is a 404, as one never reviewed).
 */
@Controller('api/reviews')
@UseGuards(ReadGuard)
export class ReviewsController {
  constructor(
    @Inject(ReviewLedgerService) private readonly ledgers: ReviewLedgerService,
    @Inject(VisibleThreadsService) private readonly visible: VisibleThreadsService,
  ) {}

  @Get()
  async list(
    @Query() query: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<ReviewedPullRequestView[]> {
    const reviewed = await this.ledgers.list(parseInput(ROUTES.listReviews.query, query, 'query'));
    return this.visible.ofVisibleRepositories(caller, reviewed, ({ pullRequest }) => ({
      owner: pullRequest.owner,
      name: pullRequest.repo,
    }));
  }

  @Get(':owner/:name/:number')
  async ledger(
    @Param() params: unknown,
    @Query() query: unknown,
    @CurrentCaller() caller: Caller | null,
  ): Promise<ReviewLedgerView> {
    const { owner, name, number } = parseInput(ROUTES.reviewLedger.params, params, 'pull request');
    const { status } = parseInput(ROUTES.reviewLedger.query, query, 'query');
    await this.visible.repository(
      caller,
      { owner, name },
      `no review ledger for ${owner}/${name}#${number}: it was never reviewed`,
    );
    return this.ledgers.ledger({ owner, repo: name, number }, status);
  }
}
