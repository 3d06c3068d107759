import type { FindingRepository } from '@caravel/db';
import type { GitHubReviews, PullRequestRef } from '@caravel/integrations';

/** The check run's name on the pull request's head. */
export const REVIEW_CHECK_NAME = 'Caravel Review';

/** How the review ended, for its check run. */
export type ReviewEnding = { kind: 'published'; openFindings: number } | { kind: 'died' };

/**
 * The reviewer's check run: in progress while a review runs (its id kept on the ledger, so
 * whoever sees the run die can complete it), then `success` with what was found (informational:
 * it never blocks a merge) or `neutral` when the review did not complete.
 */
export class ReviewCheckService {
  constructor(
    private readonly findings: FindingRepository,
    private readonly github: Pick<GitHubReviews, 'startCheck' | 'completeCheck'>,
  ) {}

  /** Starts the check on `headSha` and records it on the ledger of `threadId`. */
  async start(
    threadId: string,
    pr: PullRequestRef,
    headSha: string,
    detailsUrl?: string,
  ): Promise<string> {
    const checkRunId = await this.github.startCheck(pr, {
      name: REVIEW_CHECK_NAME,
      headSha,
      ...(detailsUrl ? { detailsUrl } : {}),
      output: { title: 'Review in progress', summary: 'Caravel is reviewing this head.' },
    });
    await this.findings.moveLedger(threadId, { checkRunId });
    return checkRunId;
  }

  /** Completes the ledger's check run, if one is in progress; false when there was none. */
  async finish(threadId: string, pr: PullRequestRef, ending: ReviewEnding): Promise<boolean> {
    const ledger = await this.findings.getLedger(threadId);
    const checkRunId = ledger?.checkRunId;
    if (!checkRunId) return false;
    await this.github.completeCheck(pr, checkRunId, completionOf(ending));
    await this.findings.moveLedger(threadId, { checkRunId: null });
    return true;
  }
}

function completionOf(ending: ReviewEnding): {
  conclusion: 'success' | 'neutral';
  output: { title: string; summary: string };
} {
  if (ending.kind === 'died') {
    return {
      conclusion: 'neutral',
      output: { title: 'Review did not complete', summary: 'The review stopped before it ended.' },
    };
  }
  const n = ending.openFindings;
  const title = n === 0 ? 'No issues found' : `Found ${n} potential issue${n === 1 ? '' : 's'}`;
  return { conclusion: 'success', output: { title, summary: title } };
}
