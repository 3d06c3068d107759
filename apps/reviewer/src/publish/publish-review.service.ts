import type { FindingRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import {
  hasCaravelReview,
  isAnchorRejection,
  planReview,
  recognisePublished,
  type ChangedLineSet,
  type ReviewEvent,
  type ReviewPlan,
  type Severity,
  type VerdictReason,
} from '@caravel/findings';
import type { GitHubReviews, PullRequestRef } from '@caravel/integrations';
import { FindingThreadsService, type ThreadOutcome } from './finding-threads.service.js';
import { readPullRequest, type PullRequestView } from './pull-request-view.js';

/** What the reviewer's GitHub client must do for a publish. */
export type PublishGitHub = Pick<
  GitHubReviews,
  | 'listReviews'
  | 'listReviewComments'
  | 'listThreads'
  | 'createReview'
  | 'dismissReview'
  | 'reply'
  | 'resolveThread'
>;

/** One publish of a pull request's ledger. */
export interface PublishRequest {
  /** The reviewer thread whose ledger is published. */
  threadId: string;
  pullRequest: PullRequestRef;
  headSha: string;
  /** The pull request's changed-line set at `headSha`. */
  changedLines: ChangedLineSet;
  /** A fresh changed-line set at the head (git diff again), after GitHub refused a comment. */
  refreshChangedLines?: () => Promise<ChangedLineSet>;
  verdict: {
    /** The request explicitly asked for a verdict (an explicit mention, never an auto-review). */
    verdictRequested: boolean;
    /** The pull request is Caravel's own. */
    ownPullRequest: boolean;
    /** The repository lets Caravel approve a clean review. */
    approveCleanReviews: boolean;
    /** What the reviewer agent asked for (it can lower the verdict, never raise it). */
    proposed?: ReviewEvent;
  };
  threshold?: Severity;
  /** Where every finding can be seen (the dashboard). */
  webUrl?: string | null;
}

/** What a publish did. `posted` false does not mean it failed: see `skipReason`. */
export interface PublishResult {
  posted: boolean;
  reviewId: string | null;
  skipReason: ReviewPlan['skipReason'];
  event: ReviewEvent;
  verdictReason: VerdictReason;
  /** Findings this publish surfaced (inline or in the body). */
  surfaced: string[];
  /** Counted in the body, not posted: under the threshold, over the cap. */
  belowThreshold: number;
  overCap: number;
  /** Findings GitHub could not place in the diff at the head: to re-anchor, not to retry as is. */
  unresolvable: { findingId: string; message: string }[];
  /** Whether the inline comments were given up for a summary-only review (refused twice). */
  summaryOnly: boolean;
  dismissedApprovals: string[];
  threads: ThreadOutcome[];
  /** Findings an earlier publish had posted (recognised by their markers, not posted again). */
  recognised: string[];
}

const DISMISS_MESSAGE = 'New findings on a later head: this approval no longer stands.';

/**
 * `publish_review`: one review per publish, driven by `planReview` over the ledger. Before
 * planning, Caravel's reviews and comments on the pull request are read and their hidden markers
 * link findings an earlier publish already posted (a retry whose answer was lost posts nothing
 * twice); after posting, the same reading links the new review's comments and threads. A 422
 * about a comment's place re-plans on a fresh diff (the offending findings drop out as
 * unresolvable) and tries once more, then falls back to a summary-only review. Every publish,
 * an empty re-review included, settles the threads of closed findings (note, then GraphQL
 * resolve) and advances the ledger's last reviewed head.
 */
export class PublishReviewService {
  private readonly threads: FindingThreadsService;

  constructor(
    private readonly findings: FindingRepository,
    private readonly github: PublishGitHub,
    private readonly botLogin: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.threads = new FindingThreadsService(findings, github, now);
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    const { threadId, pullRequest } = request;
    if (!(await this.findings.getLedger(threadId))) {
      throw new AppError('NOT_FOUND', `no review ledger for thread ${threadId}`);
    }
    let view = await readPullRequest(this.github, pullRequest, this.botLogin);
    const recognised = await this.recognise(threadId, view);
    const posting = await this.post(request, view);
    if (posting.reviewId) {
      view = await readPullRequest(this.github, pullRequest, this.botLogin);
      await this.recognise(threadId, view);
    }
    const dismissed: string[] = [];
    for (const reviewId of posting.plan.dismissApprovals) {
      await this.github.dismissReview(pullRequest, reviewId, DISMISS_MESSAGE);
      dismissed.push(reviewId);
    }
    const ledger = await this.findings.list(threadId);
    const threads = await this.threads.settle(pullRequest, ledger, view.threads);
    // The verdict is kept on the ledger, where the dashboard reads it.
    const { event, reason } = posting.plan.verdict;
    const verdict = { event, reason, reviewId: posting.reviewId, sha: request.headSha };
    await this.findings.moveLedger(
      threadId,
      { headSha: request.headSha, lastReviewedSha: request.headSha, verdict },
      this.now(),
    );
    return result(posting, recognised, dismissed, threads);
  }

  /** Links findings to the Caravel reviews and comments GitHub has; returns their ids. */
  private async recognise(threadId: string, view: PullRequestView): Promise<string[]> {
    let linked: string[] = [];
    await this.findings.updateAll(threadId, (current) => {
      const outcome = recognisePublished(current, view, this.now().toISOString());
      linked = outcome.linked;
      return outcome.changed;
    });
    return linked;
  }

  /** Plans and posts the review: as planned, then on a fresh diff, then summary-only. */
  private async post(request: PublishRequest, view: PullRequestView): Promise<Posting> {
    const findings = await this.findings.list(request.threadId);
    const plan = (changedLines: ChangedLineSet, summaryOnly = false): ReviewPlan =>
      planReview({
        pullRequest: request.pullRequest.number,
        headSha: request.headSha,
        findings,
        changedLines,
        ...(request.threshold ? { threshold: request.threshold } : {}),
        verdict: request.verdict,
        approvals: view.approvals,
        existingSummary: hasCaravelReview(view.reviews) ? 'present' : 'absent',
        webUrl: request.webUrl ?? null,
        summaryOnly,
      });
    const refreshed = async (): Promise<ReviewPlan> =>
      plan(
        request.refreshChangedLines ? await request.refreshChangedLines() : request.changedLines,
      );
    const attempts = [
      () => Promise.resolve(plan(request.changedLines)),
      refreshed,
      () => Promise.resolve(plan(request.changedLines, true)),
    ];
    const unresolvable = new Map<string, string>();
    for (const [index, attempt] of attempts.entries()) {
      const current = await attempt();
      for (const u of current.unanchorable) unresolvable.set(u.findingId, u.message);
      const posting = { plan: current, summaryOnly: index === attempts.length - 1, unresolvable };
      if (current.action === 'skip' || !current.payload) return { ...posting, reviewId: null };
      const created = await this.github.createReview(request.pullRequest, current.payload);
      if (created.kind === 'created') return { ...posting, reviewId: created.reviewId };
      if (!isAnchorRejection(created.messages) || index === attempts.length - 1) {
        throw new AppError(
          'BAD_REQUEST',
          `GitHub refused the review: ${created.messages.join('; ')}`,
          {
            details: { messages: created.messages },
          },
        );
      }
    }
    throw new AppError('INTERNAL', 'unreachable: every publish attempt returns or throws');
  }
}

interface Posting {
  plan: ReviewPlan;
  reviewId: string | null;
  /** The inline comments were given up: GitHub refused them twice. */
  summaryOnly: boolean;
  unresolvable: Map<string, string>;
}

function result(
  posting: Posting,
  recognised: string[],
  dismissedApprovals: string[],
  threads: ThreadOutcome[],
): PublishResult {
  const { plan, reviewId } = posting;
  return {
    posted: reviewId !== null,
    reviewId,
    skipReason: plan.skipReason,
    event: plan.verdict.event,
    verdictReason: plan.verdict.reason,
    surfaced: reviewId === null ? [] : [...plan.inline, ...plan.inBody],
    belowThreshold: plan.belowThreshold.length,
    overCap: plan.overCap.length,
    unresolvable: [...posting.unresolvable].map(([findingId, message]) => ({ findingId, message })),
    summaryOnly: reviewId !== null && posting.summaryOnly,
    dismissedApprovals,
    threads,
    recognised,
  };
}
