import {
  githubReviewThreadId,
  PullRequestHeadMovedV1,
  ReviewRequestedV1,
  type EnvelopeOf,
} from '@caravel/contracts';
import {
  FindingRepository,
  PullRequestHeadRepository,
  type PullRequestKey,
  type ReviewLedgerRow,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { REVIEWS_OFF } from './review-runs.options.js';
import { ReviewRunsService, type ReviewJob } from './review-runs.service.js';

/** Why a push to a reviewed pull request is not reviewed where the repository does not ask it. */
export const PUSHES_NOT_REVIEWED =
  'a push to a reviewed pull request is not reviewed again here (REVIEWER_REREVIEW_ON_PUSH=false)';

/**
 * Review requests in: each pull request has one canonical reviewer thread (the id ingress derives
 * with `githubReviewThreadId`) and one ledger keyed by it, opened on its first request; each
 * request records the head it asks about and, when the module runs reviews, reviews it. A request
 * naming another thread id for the pull request is refused (`MESSAGE_MALFORMED`, not retried): a
 * second ledger for one pull request would split its findings. A push to a pull request already
 * reviewed moves its ledger's live head and is reviewed again (the range since the last review)
 * when its repository asks for it; a push to any other pull request is none of the reviewer's.
 * Without review runs (no model or no GitHub configured) every request that would have been
 * reviewed says why it was not, in a warning naming the pull request and its head, and on its
 * ledger (`skipReason`, `skippedSha`), as a push not reviewed again does; a review that starts
 * clears it.
 */
@Injectable()
export class ReviewRequestsService implements OnModuleInit {
  private readonly logger = new Logger('ReviewRequests');

  constructor(
    @Inject(FindingRepository) private readonly findings: FindingRepository,
    @Inject(PullRequestHeadRepository) private readonly heads: PullRequestHeadRepository,
    @Optional() @Inject(ReviewRunsService) private readonly runs: ReviewRunsService | null = null,
    @Optional() @Inject(REVIEWS_OFF) private readonly off: string | null = null,
  ) {}

  onModuleInit(): void {
    // Info, not a warning: a host with no reviews to run (caravel run) is not degraded by it.
    if (!this.runs) {
      this.logger.log(
        `reviews are off: ${this.reasonOff()}; review requests only keep their pull requests' ledgers`,
      );
    }
  }

  /** Opens the ledger and reviews; `stopping` hands the review back (see `ReviewRunsService`). */
  async onRequested(
    envelope: EnvelopeOf<typeof ReviewRequestedV1>,
    stopping?: AbortSignal,
  ): Promise<ReviewLedgerRow> {
    const { threadId, repository, pullRequest, author } = envelope.data;
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
    const headSha = await this.headToReview(
      { owner, repo, number: pullRequest.number },
      pullRequest.headSha.toLowerCase(),
      envelope.occurredAt,
    );
    const ledger = await this.findings.moveLedger(threadId, { headSha });
    await this.review(
      {
        threadId,
        repository,
        number: pullRequest.number,
        headSha,
        author: author.externalId,
        // A person who asked for a verdict (request_pr_review) gets one; an auto-review does not.
        verdictRequested: envelope.data.verdictRequested,
        // Only a request names who asked; an auto-review's pull request author asked nothing.
        requestedBy:
          envelope.data.reason === 'requested' ? (envelope.data.requestedBy ?? null) : null,
        instructions: envelope.data.instructions ?? null,
      },
      stopping,
    );
    return ledger;
  }

  /** A push: the reviewed pull request's ledger follows it; `null` when it was never reviewed. */
  async onHeadMoved(
    envelope: EnvelopeOf<typeof PullRequestHeadMovedV1>,
    stopping?: AbortSignal,
  ): Promise<ReviewLedgerRow | null> {
    const { repository, pullRequest: number } = envelope.data;
    const owner = repository.owner.toLowerCase();
    const repo = repository.name.toLowerCase();
    const threadId = githubReviewThreadId({ owner, repo, number });
    const headSha = envelope.data.headSha.toLowerCase();
    // Kept whether or not the pull request was reviewed: a request handled after this push
    // reviews this head, not the older one it names.
    await this.heads.record(
      { owner, repo, number },
      { headSha, at: new Date(envelope.occurredAt) },
    );
    const ledger = await this.findings.getLedger(threadId);
    if (!ledger?.lastReviewedSha) return null;
    if (ledger.headSha === headSha && ledger.lastReviewedSha === headSha) return ledger;
    const moved = await this.findings.moveLedger(threadId, { headSha });
    if (!(this.runs?.reReviewsOnPush(repository) ?? true)) {
      await this.findings.noteSkip(threadId, { reason: PUSHES_NOT_REVIEWED, sha: headSha });
      return moved;
    }
    await this.review(
      {
        threadId,
        repository,
        number,
        headSha,
        author: null,
        verdictRequested: false,
        requestedBy: null,
        instructions: null,
      },
      stopping,
    );
    return moved;
  }

  /**
   * The head a request reviews: the one it names, or a push heard of at or after the request was
   * made (the pushes' consumer got to it first), so the review is of the pull request as it is.
   */
  private async headToReview(
    pullRequest: PullRequestKey,
    requested: string,
    requestedAt: string,
  ): Promise<string> {
    const pushed = await this.heads.since(pullRequest, new Date(requestedAt));
    if (!pushed || pushed.headSha === requested) return requested;
    const { owner, repo, number } = pullRequest;
    this.logger.log(
      `${owner}/${repo}#${number}: asked at ${requested.slice(0, 7)}, pushed since to ${pushed.headSha.slice(0, 7)}: reviewing that`,
    );
    return pushed.headSha;
  }

  /**
   * Runs the review, or says why it is not run (never a silent drop): in a warning, and on the
   * ledger, where the dashboard shows it until a review of the pull request starts.
   */
  private async review(job: ReviewJob, stopping?: AbortSignal): Promise<void> {
    if (this.runs) {
      await this.findings.noteSkip(job.threadId, null);
      await this.runs.review(job, stopping);
      return;
    }
    const { owner, name } = job.repository;
    const reason = this.reasonOff();
    this.logger.warn(
      `${owner}/${name}#${job.number} at ${job.headSha.slice(0, 7)} not reviewed: ${reason}`,
    );
    await this.findings.noteSkip(job.threadId, {
      reason: `reviews are off: ${reason}`,
      sha: job.headSha,
    });
  }

  private reasonOff(): string {
    return this.off ?? 'the reviewer runs no reviews';
  }
}
