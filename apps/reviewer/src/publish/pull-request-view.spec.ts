import { describe, expect, it } from '@jest/globals';
import { renderFindingMarker, renderReviewMarker } from '@caravel/findings';
import type { ListedReview, ListedReviewComment } from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { readPullRequest } from './pull-request-view.js';

const OLD = 'c'.repeat(40);
const pr = { repository: { owner: 'acme', name: 'widgets' }, number: 7 };
const reviewMarker = renderReviewMarker({
  v: 1,
  pr: 7,
  head: OLD,
  threshold: 'medium',
  findings: ['f_0000000001'],
});
const findingMarker = renderFindingMarker({
  v: 1,
  id: 'f_0000000001',
  file: 'src/app.ts',
  start_line: 10,
  end_line: 10,
  side: 'RIGHT',
});

const review = (reviewId: string, login: string, state = 'COMMENTED'): ListedReview => ({
  reviewId,
  body: `${reviewMarker}\nbody`,
  state,
  commitId: OLD,
  login,
});
const comment = (commentId: string, reviewId: string, login: string): ListedReviewComment => ({
  commentId,
  reviewId,
  inReplyToId: null,
  body: `${findingMarker}\ncomment`,
  login,
  userType: 'Bot',
  association: 'NONE',
  path: 'src/app.ts',
  line: 10,
  startLine: null,
  side: 'RIGHT',
  commitId: OLD,
  url: null,
  createdAt: '2026-03-01T10:00:00Z',
});

describe('readPullRequest', () => {
  it("counts only Caravel's own reviews and comments, whatever markers others paste", async () => {
    const github = strictMock<Parameters<typeof readPullRequest>[0]>({
      listReviews: () =>
        Promise.resolve([
          review('1', 'Caravel[bot]', 'APPROVED'),
          review('2', 'mallory', 'APPROVED'),
          review('3', 'caravel[bot]', 'DISMISSED'),
        ]),
      listReviewComments: () =>
        Promise.resolve([comment('10', '1', 'caravel[bot]'), comment('11', '2', 'mallory')]),
      listThreads: () =>
        Promise.resolve([
          { threadId: 'PRRT_a', isResolved: false, firstCommentId: '10' },
          { threadId: 'PRRT_b', isResolved: false, firstCommentId: '11' },
        ]),
    });

    const view = await readPullRequest(github, pr, 'caravel[bot]');

    expect(view.reviews.map((r) => r.reviewId)).toEqual(['1', '3']);
    expect(view.comments).toEqual([
      { commentId: '10', reviewId: '1', threadId: 'PRRT_a', body: `${findingMarker}\ncomment` },
    ]);
    expect(view.approvals).toEqual([{ reviewId: '1', commitId: OLD }]);
    expect(view.threads).toHaveLength(2);
  });
});
