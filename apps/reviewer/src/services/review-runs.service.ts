import type { RepositoryRef } from '@caravel/contracts';
import { FindingRepository, ReviewStyleRepository, UserInstructionsRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import type { IntegrationAdapters } from '@caravel/integrations';
import { ToolSandboxAdapter } from '@caravel/sandbox';
import { isOwnPeople, type PullRequestDetails } from '@caravel/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { NO_REVIEW_SOURCES, type ReviewSources } from '../preparation/prepare-review.js';
import { pullRequestTextOf } from '../preparation/pull-request-text.js';
import { ReviewSandboxService } from '../preparation/review-sandbox.service.js';
import { runReview, type ReviewRunOutcome } from '../run/review-run.js';

/** What review runs are made with: built from the configuration by `reviewRunsOptionsOf`. */
export interface ReviewRunsOptions {
  /**
   * GitHub through the one credential model: what a review publishes (`reviews`) and what it
   * reads of the pull request, its state, title, description and conversation (`scmHistory`).
   */
  integrations: Pick<IntegrationAdapters, 'reviews' | 'scmHistory'>;
  /** The reviewer's model for one run (the first one loads the providers' SDKs). */
  model: () => Promise<BaseChatModel>;
  /** Caravel's GitHub login (its own pull requests get no verdict; its comments are its own). */
  botLogin: string;
  /** Whether a clean review of this repository may approve (default: never). */
  approveCleanReviews?: (repository: RepositoryRef) => boolean;
  /** Whether a push to a reviewed pull request of this repository is reviewed again (default: yes). */
  reReviewOnPush?: (repository: RepositoryRef) => boolean;
}

export const REVIEW_RUNS_OPTIONS = Symbol('REVIEW_RUNS_OPTIONS');

/** One review to run on a pull request's reviewer thread. */
export interface ReviewJob {
  threadId: string;
  repository: RepositoryRef;
  number: number;
  headSha: string;
  /**
   * The pull request's author's login as the trigger says it; null when it does not (a push).
   * The pull request as GitHub answers it is asked first ({@link isOwnPullRequest}).
   */
  author: string | null;
  /** The request explicitly asked for a verdict (never an auto-review or a push). */
  verdictRequested: boolean;
  /**
   * Who asked for this review (`<source>:<id>`): their standing instructions guide it. Null for
   * an auto-review or a push: nobody asked, and the author's own must not steer their review.
   */
  requestedBy: string | null;
  /** What the request asked the review to look at (the coding agent's words: untrusted). */
  instructions: string | null;
}

/**
 * Runs reviews: GitHub from the integrations (the App's installation token for the repository,
 * the static token only in development), the reviewer thread's sandbox from the broker (released
 * after the run: the checkout is re-derived by the next one), the repository's latest saved
 * review style (the analyzer's) for the brief, then {@link runReview}.
 */
@Injectable()
export class ReviewRunsService {
  private readonly logger = new Logger('ReviewRuns');

  constructor(
    @Inject(FindingRepository) private readonly findings: FindingRepository,
    @Inject(ReviewSandboxService) private readonly sandboxes: ReviewSandboxService,
    @Inject(ReviewStyleRepository) private readonly styles: ReviewStyleRepository,
    @Inject(UserInstructionsRepository) private readonly people: UserInstructionsRepository,
    @Inject(REVIEW_RUNS_OPTIONS) private readonly options: ReviewRunsOptions,
  ) {}

  /** Whether a push to a reviewed pull request of `repository` is reviewed again. */
  reReviewsOnPush(repository: RepositoryRef): boolean {
    return this.options.reReviewOnPush?.(repository) ?? true;
  }

  /**
   * Runs one review; null when the pull request was closed or merged before it started (a request
   * or a push handled late): nothing is published on it, and the ledger says why. When `stopping`
   * aborts (the reviewer shuts down) the review stops at a safe point and is handed back
   * (`reviewHandedBack`), its sandbox released for the next reviewer.
   */
  async review(job: ReviewJob, stopping?: AbortSignal): Promise<ReviewRunOutcome | null> {
    const { repository, threadId } = job;
    const github = this.options.integrations.reviews(repository);
    const reader = this.options.integrations.scmHistory(repository);
    if (!github || !reader) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `no GitHub credential can review ${repository.owner}/${repository.name}: install the GitHub App on it (or set GITHUB_TOKEN in development)`,
        { retryable: false },
      );
    }
    const pullRequest = await reader.getPullRequest(job.number);
    if (pullRequest.state !== 'open') {
      const reason = `the pull request is ${pullRequest.state}`;
      this.logger.log(
        `${repository.owner}/${repository.name}#${job.number} at ${job.headSha.slice(0, 7)} not reviewed: ${reason}`,
      );
      await this.findings.noteSkip(threadId, { reason, sha: job.headSha });
      return null;
    }
    const sources: ReviewSources = {
      ...NO_REVIEW_SOURCES,
      pullRequestText: () => pullRequestTextOf(reader, pullRequest, this.options.botLogin),
      personInstructions: () => this.personInstructions(job.requestedBy),
      requestInstructions: () => Promise.resolve(job.instructions),
      reviewStyle: () => this.reviewStyle(repository),
    };
    const { sandbox, git } = await this.sandboxes.checkout(threadId, repository, stopping);
    try {
      return await runReview(
        {
          findings: this.findings,
          github,
          botLogin: this.options.botLogin,
          events: { emit: (event) => this.logger.log(`${threadId}: ${event.type}`) },
        },
        {
          threadId,
          pullRequest: {
            repository: { owner: repository.owner, name: repository.name },
            number: job.number,
          },
          headSha: job.headSha,
          ...(repository.baseBranch ? { baseBranch: repository.baseBranch } : {}),
          model: await this.options.model(),
          git,
          workspace: new ToolSandboxAdapter(sandbox, job.headSha),
          sources,
          verdict: {
            verdictRequested: job.verdictRequested,
            ownPullRequest: isOwnPullRequest(job, pullRequest, this.options.botLogin),
            approveCleanReviews: mayApproveClean(
              this.options.approveCleanReviews?.(repository) ?? false,
              pullRequest,
            ),
          },
          ...(stopping ? { stopping } : {}),
        },
      );
    } finally {
      await this.sandboxes.release(threadId);
    }
  }

  /** The standing instructions the person who asked saved, or null (nobody asked, none saved). */
  private async personInstructions(person: string | null): Promise<string | null> {
    if (person === null) return null;
    return (await this.people.find(person))?.instructions ?? null;
  }

  /** The repository's latest saved review style (the analyzer's), or null before any. */
  private async reviewStyle(repository: RepositoryRef): Promise<string | null> {
    const style = await this.styles.latest(`${repository.owner}/${repository.name}`);
    return style?.prompt ?? null;
  }
}

/**
 * Whether a clean review may approve: the repository enables it, and the pull request's author
 * is one of its own people as GitHub says. A stranger's pull request is the very text the
 * reviewer's model reads (and could be talked by): its clean review says nothing was found, never
 * that it may go in.
 */
export function mayApproveClean(
  enabled: boolean,
  pullRequest: Pick<PullRequestDetails, 'association'>,
): boolean {
  return enabled && isOwnPeople(pullRequest.association);
}

/**
 * Whether the reviewed pull request is Caravel's own, for the verdict (GitHub refuses both
 * verdicts on one's own pull request): its author as GitHub answered (`pullRequest`), else as
 * the trigger said. An unknown author counts as Caravel's: the verdict is then a comment at most,
 * never a refused approval. So a push's re-review, whose trigger names no author, can still
 * approve a person's pull request once its findings are fixed.
 */
export function isOwnPullRequest(
  job: Pick<ReviewJob, 'author'>,
  pullRequest: Pick<PullRequestDetails, 'author'>,
  botLogin: string,
): boolean {
  const author = pullRequest.author ?? job.author;
  return author === null || author.toLowerCase() === botLogin.toLowerCase();
}
