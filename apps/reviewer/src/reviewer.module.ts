import { FindingRepository } from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Module } from '@nestjs/common';
import { ReviewRequestedHandler } from './handlers/review-requested.handler.js';
import { ReviewRequestsService } from './services/review-requests.service.js';

/**
 * Review runs. So far: review requests open the pull request's ledger on its canonical reviewer
 * thread and record the head asked about; publishing (`src/publish/`) is built, the reviewer's
 * agent that files findings is not yet (docs/reviewer.md).
 */
@Module({
  controllers: [ReviewRequestedHandler],
  providers: [ReviewRequestsService, repositoryProvider(FindingRepository)],
})
export class ReviewerModule {}
