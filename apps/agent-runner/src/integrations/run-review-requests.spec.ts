import {
  ReviewRequestedV1,
  StartRunV1,
  githubReviewThreadId,
  type Envelope,
} from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';
import { strictMock } from '@caravel/testing/doubles';
import {
  requestPrReviewTool,
  type PullRequestDetails,
  type ReviewRequester,
  type ScmReadPort,
} from '@caravel/tools';
import { RunReviewRequests } from './run-review-requests.js';

const HEAD = 'c'.repeat(40);
const PULL: PullRequestDetails = {
  number: 7,
  title: 'T',
  body: '',
  author: 'hubot',
  state: 'open',
  draft: true,
  url: 'https://github.example/acme/widgets/pull/7',
  head: { ref: 'fix', sha: HEAD, repository: { owner: 'acme', name: 'widgets' } },
  base: { ref: 'main', sha: 'b'.repeat(40) },
};

function tool(pull: PullRequestDetails = PULL) {
  const published: Envelope<unknown>[] = [];
  const asked: unknown[] = [];
  const people = strictMock<ReviewRequester>(
    {
      requestReview: (request) => {
        asked.push(request);
        return Promise.resolve({
          pullRequest: { number: 7, url: PULL.url, draft: true },
          requested: request.reviewers,
        });
      },
    },
    'people',
  );
  const bus = strictMock<Pick<Bus, 'publish'>>(
    {
      publish: (definition, envelope) => {
        expect(definition).toBe(ReviewRequestedV1);
        published.push(envelope);
        return Promise.resolve({ stream: 'CARAVEL_TRIGGERS', duplicate: false, sequence: 1 });
      },
    },
    'bus',
  );
  const reader = strictMock<ScmReadPort>({ getPullRequest: () => Promise.resolve(pull) }, 'reader');
  const run = {
    ...StartRunV1.fixture().data,
    source: 'github' as const,
    repository: { owner: 'acme', name: 'widgets' },
  };
  const requests = new RunReviewRequests(people, reader, bus, run);
  return { review: requestPrReviewTool(requests), published, asked };
}

describe('request_pr_review in a run', () => {
  it("asks Caravel's reviewer on the reviewer thread at the head, with instructions and the verdict ask", async () => {
    const { review, published, asked } = tool();
    const result = await review.invoke({
      pull_request: 7,
      instructions: 'focus on the parser',
      request_verdict: true,
    });

    expect(result.observation).toBe(
      `Review of #7 queued for Caravel's reviewer at head ${HEAD.slice(0, 12)}: ${PULL.url}`,
    );
    expect(asked).toEqual([]);
    expect(published).toHaveLength(1);
    expect(published[0]?.data).toMatchObject({
      threadId: githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 7 }),
      pullRequest: { number: 7, headSha: HEAD, draft: true },
      reason: 'requested',
      instructions: 'focus on the parser',
      verdictRequested: true,
      // The pull request's author as GitHub says, and who asked, as Caravel names people.
      author: { externalId: 'hubot' },
      requestedBy: 'github:octocat',
    });
    // What the reviewer consumes passes the contract.
    expect(() => ReviewRequestedV1.envelopeSchema.parse(published[0])).not.toThrow();
  });

  it('asks people on GitHub when named, and says only that', async () => {
    const { review, published } = tool();
    const result = await review.invoke({ pull_request: 7, reviewers: ['hubot'] });
    expect(result.observation).toBe(`Review of #7 requested from hubot: ${PULL.url}`);
    expect(published).toEqual([]);
  });

  it('refuses a closed pull request instead of claiming a review', async () => {
    const { review, published } = tool({ ...PULL, state: 'closed' });
    const result = await review.invoke({ pull_request: 7 });
    expect(result).toMatchObject({ ok: false });
    expect(result.observation).toContain('pull request #7 is closed');
    expect(published).toEqual([]);
  });
});
