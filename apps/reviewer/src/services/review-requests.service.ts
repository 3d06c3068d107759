import { githubReviewThreadId, ReviewRequestedV1, type EnvelopeOf } from '@caravel/contracts';
import { FindingRepository, type ReviewLedgerRow } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';

/**
 * Review requests in: each pull request has one canonical reviewer thread (the id ingress derives
 * with `githubReviewThreadId`) and one ledger keyed by it, opened on its first request; each
 * request records the head it asks about. A request naming another thread id for the pull request
 * is refused (`MESSAGE_MALFORMED`, not retried): a second ledger for one pull request would split
 * its findings.
 */
@Injectable()
export class ReviewRequestsService {
  constructor(@Inject(FindingRepository) private readonly findings: FindingRepository) {}

  async onRequested(envelope: EnvelopeOf<typeof ReviewRequestedV1>): Promise<ReviewLedgerRow> {
    const { threadId, repository, pullRequest } = envelope.data;
    const owner = repository.owner.toLowerCase();
    const repo = repository.name.toLowerCase();
    const canonical = githubReviewThreadId({ owner, repo, number: pullRequest.number });
    if (threadId !== canonical) {
      throw new AppError(
        'MESSAGE_MALFORMED',
        `review request for ${owner}/${repo}#${pullRequest.number} names thread ${threadId}, not its reviewer thread ${canonical}`,
        { retryable: false },
      );
    }
    await this.findings.openLedger({ threadId, owner, repo, number: pullRequest.number });
    return this.findings.moveLedger(threadId, { headSha: pullRequest.headSha.toLowerCase() });
  }
}
