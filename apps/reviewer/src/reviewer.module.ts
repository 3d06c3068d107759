import {
  FindingRepository,
  PullRequestHeadRepository,
  ReviewStyleRepository,
  UserInstructionsRepository,
} from '@caravel/db';
import { repositoryProvider } from '@caravel/platform';
import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { ReviewerKitLoader } from './agent/reviewer-kit.loader.js';
import { HeadMovedHandler } from './handlers/head-moved.handler.js';
import { ReviewRequestedHandler } from './handlers/review-requested.handler.js';
import { ReviewSandboxService } from './preparation/review-sandbox.service.js';
import { REVIEWER_CONFIG, type ReviewerConfig } from './reviewer.config.js';
import { ReviewRequestGate } from './services/review-request-gate.service.js';
import { ReviewRequestsService } from './services/review-requests.service.js';
import {
  REVIEWS_OFF,
  reviewRunsOptionsOf,
  reviewsOffReason,
} from './services/review-runs.options.js';
import { REVIEW_RUNS_OPTIONS, ReviewRunsService } from './services/review-runs.service.js';

/** What runs reviews, or, when the configuration cannot, why not (said at start and per request). */
function reviewProviders(config: ReviewerConfig): Provider[] {
  const off = reviewsOffReason(config);
  if (off !== null) return [{ provide: REVIEWS_OFF, useValue: off }];
  return [
    ReviewerKitLoader,
    {
      provide: REVIEW_RUNS_OPTIONS,
      inject: [ReviewerKitLoader],
      useFactory: (kit: ReviewerKitLoader) => reviewRunsOptionsOf(config, kit),
    },
    repositoryProvider(ReviewStyleRepository),
    repositoryProvider(UserInstructionsRepository),
    ReviewSandboxService,
    ReviewRunsService,
  ];
}

/**
 * Review runs (docs/reviewer.md). Review requests open the pull request's ledger on its canonical
 * reviewer thread and record the head asked about, and pushes move a reviewed ledger's live head.
 * With a model and a GitHub credential configured, a request, or a push to a reviewed pull
 * request, is then reviewed in the reviewer thread's sandbox and published on GitHub; without
 * them the reviewer says so once at start and only keeps ledgers.
 */
@Module({})
export class ReviewerModule {
  static register(config: ReviewerConfig): DynamicModule {
    return {
      module: ReviewerModule,
      controllers: [ReviewRequestedHandler, HeadMovedHandler],
      providers: [
        { provide: REVIEWER_CONFIG, useValue: config },
        ReviewRequestGate,
        ReviewRequestsService,
        repositoryProvider(FindingRepository),
        repositoryProvider(PullRequestHeadRepository),
        ...reviewProviders(config),
      ],
    };
  }
}
