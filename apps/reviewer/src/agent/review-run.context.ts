import type { FindingRepository } from '@caravel/db';
import type { ReviewEvent, Severity } from '@caravel/findings';
import type { GitHubReviews, PullRequestRef } from '@caravel/integrations';
import type { PreparedReview } from '../preparation/prepare-review.js';
import type { FindingThreadsService } from '../publish/finding-threads.service.js';
import type { PublishResult } from '../publish/publish-review.service.js';

/** What the model may ask of a publish: a lower verdict, another severity threshold. */
export interface PublishAsk {
  proposed?: ReviewEvent;
  threshold?: Severity;
}

/**
 * Everything one review run's tools are bound to: the reviewer thread's ledger, the prepared
 * review (head, diffs, changed lines), and GitHub through the publisher and the thread service.
 * The verdict's inputs (explicit ask, own pull request, the repository's approval setting) are
 * bound into `publish` by the run, never given by the model.
 */
export interface ReviewRunContext {
  threadId: string;
  pullRequest: PullRequestRef;
  prepared: PreparedReview;
  findings: FindingRepository;
  publish(ask: PublishAsk): Promise<PublishResult>;
  threads: Pick<FindingThreadsService, 'close'>;
  github: Pick<GitHubReviews, 'reply'>;
  now: () => Date;
}
