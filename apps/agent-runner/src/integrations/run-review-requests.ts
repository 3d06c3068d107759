import {
  CARAVEL_NAMESPACE,
  ReviewRequestedV1,
  githubReviewThreadId,
  githubThreadId,
  uuidV5,
  type EnvelopeOf,
  type StartRunV1,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import type { Bus } from '@caravel/messaging';
import type { ReviewRequest, ReviewRequested, ReviewRequester, ScmReadPort } from '@caravel/tools';
import { requesterOf } from '../agent/run-people.js';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/**
 * `request_pr_review` for a run: people are asked on GitHub (the code host's review requests);
 * with no people named, Caravel's reviewer is asked by publishing `trigger.review.requested`
 * on the pull request's reviewer thread, at its current head, with the pull request's author, the
 * person who asked (`<source>:<id>`), their instructions and whether they asked for a verdict. The tool says it was queued only once the bus took it.
 */
export class RunReviewRequests implements ReviewRequester {
  constructor(
    private readonly people: ReviewRequester,
    private readonly reader: ScmReadPort,
    private readonly bus: Pick<Bus, 'publish'>,
    private readonly run: StartRun,
  ) {}

  async requestReview(request: ReviewRequest): Promise<ReviewRequested> {
    if (request.reviewers.length > 0) return this.people.requestReview(request);
    const repository = this.run.repository;
    if (!repository) throw new AppError('PRECONDITION_FAILED', 'this thread has no repository');
    const pull = await this.reader.getPullRequest(request.pullRequest);
    if (pull.state !== 'open') {
      throw new AppError('PRECONDITION_FAILED', `pull request #${pull.number} is ${pull.state}`);
    }
    const target = { owner: repository.owner, repo: repository.name, number: pull.number };
    const key = `review_request:${this.run.runId}:${pull.number}:${pull.head.sha}`;
    const envelope = ReviewRequestedV1.create(
      {
        threadId: githubReviewThreadId(target),
        pullRequestThreadId: githubThreadId(target),
        source: 'github',
        deliveryId: key,
        repository: { owner: repository.owner, name: repository.name },
        pullRequest: { number: pull.number, headSha: pull.head.sha, draft: pull.draft },
        author: pull.author ? { externalId: pull.author } : this.run.requestedBy,
        reason: 'requested',
        requestedBy: requesterOf(this.run),
        verdictRequested: request.verdictRequested,
        ...(request.instructions ? { instructions: request.instructions } : {}),
      },
      { source: 'agent-runner', id: uuidV5(key, CARAVEL_NAMESPACE), idempotencyKey: key },
    );
    await this.bus.publish(ReviewRequestedV1, envelope);
    return {
      pullRequest: { number: pull.number, url: pull.url, draft: pull.draft },
      requested: [],
      reviewer: { headSha: pull.head.sha },
    };
  }
}
