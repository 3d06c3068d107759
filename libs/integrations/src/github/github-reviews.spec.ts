import { FakeGitHub } from '@caravel/testing';
import { GitHubApi } from './github-client.js';
import { GitHubReviews, type PullRequestRef } from './github-reviews.js';

const HEAD = 'a'.repeat(40);
const pr: PullRequestRef = { repository: { owner: 'acme', name: 'widgets' }, number: 7 };

describe('GitHubReviews against the fake GitHub with the real Octokit', () => {
  let github: FakeGitHub;
  let reviews: GitHubReviews;

  beforeEach(async () => {
    github = new FakeGitHub().addRepository('acme/widgets');
    github.addUserToken('ghs_bot', 'caravel[bot]');
    github.setReviewablePull('acme/widgets', 7, {
      author: 'alice',
      commentable: { 'src/app.ts': { RIGHT: [10, 11, 12], LEFT: [10] } },
    });
    await github.start();
    reviews = new GitHubReviews(
      new GitHubApi({ baseUrl: github.origin, tokens: () => Promise.resolve('ghs_bot') }),
    );
  });

  afterEach(() => github.close());

  /** Caravel's review with one inline comment, on line 11. */
  const postFinding = () =>
    reviews.createReview(pr, {
      commit_id: HEAD,
      event: 'COMMENT',
      body: 'x',
      comments: [{ path: 'src/app.ts', line: 11, side: 'RIGHT', body: 'finding' }],
    });

  it('creates one review with its inline comments, and lists them with their threads', async () => {
    const created = await reviews.createReview(pr, {
      commit_id: HEAD,
      event: 'COMMENT',
      body: 'review body',
      comments: [
        {
          path: 'src/app.ts',
          line: 12,
          side: 'RIGHT',
          start_line: 10,
          start_side: 'RIGHT',
          body: 'a',
        },
        { path: 'src/app.ts', line: 10, side: 'LEFT', body: 'b' },
      ],
    });

    expect(created).toEqual({ kind: 'created', reviewId: expect.any(String) });
    const reviewId = created.kind === 'created' ? created.reviewId : '';
    expect(await reviews.listReviews(pr)).toEqual([
      { reviewId, body: 'review body', state: 'COMMENTED', commitId: HEAD, login: 'caravel[bot]' },
    ]);
    const comments = await reviews.listReviewComments(pr);
    expect(comments.map((c) => [c.reviewId, c.path, c.startLine, c.line, c.side, c.body])).toEqual([
      [reviewId, 'src/app.ts', 10, 12, 'RIGHT', 'a'],
      [reviewId, 'src/app.ts', null, 10, 'LEFT', 'b'],
    ]);
    const threads = await reviews.listThreads(pr);
    expect(threads.map((t) => [t.firstCommentId, t.isResolved])).toEqual(
      comments.map((c) => [c.commentId, false]),
    );
  });

  it('returns GitHub’s 422 about a comment it cannot place, and posts nothing', async () => {
    const created = await reviews.createReview(pr, {
      commit_id: HEAD,
      event: 'COMMENT',
      body: 'x',
      comments: [{ path: 'src/app.ts', line: 30, side: 'RIGHT', body: 'outside' }],
    });

    expect(created).toEqual({
      kind: 'rejected',
      messages: ['Line could not be resolved', 'Unprocessable Entity'],
    });
    expect(await reviews.listReviews(pr)).toEqual([]);
  });

  it('replies in a thread, then resolves it through GraphQL', async () => {
    await postFinding();
    const [comment] = await reviews.listReviewComments(pr);
    const [thread] = await reviews.listThreads(pr);

    const replyId = await reviews.reply(pr, comment!.commentId, 'Fixed in b1.');
    await reviews.resolveThread(pr, thread!.threadId);

    const listed = await reviews.listReviewComments(pr);
    expect(listed.at(-1)).toMatchObject({
      commentId: replyId,
      inReplyToId: comment!.commentId,
      body: 'Fixed in b1.',
      path: 'src/app.ts',
    });
    expect((await reviews.listThreads(pr))[0]?.isResolved).toBe(true);
    await expect(reviews.resolveThread(pr, 'PRRT_missing')).rejects.toMatchObject({
      code: 'DEPENDENCY_UNAVAILABLE',
    });
  });

  it("lists each review comment's author_association: how its author relates to the repository", async () => {
    github.addUserToken('ghu_acme', 'acme').addUserToken('ghu_ada', 'ada');
    github.addUserToken('ghu_grace', 'grace').addUserToken('ghu_mallory', 'mallory');
    github.collaborators.add('acme/widgets', 'ada');
    github.addOrgMember('acme', 'grace');
    await postFinding();
    const [opening] = await reviews.listReviewComments(pr);
    for (const login of ['acme', 'ada', 'grace', 'mallory']) {
      const as = new GitHubReviews(
        new GitHubApi({ baseUrl: github.origin, tokens: () => Promise.resolve(`ghu_${login}`) }),
      );
      await as.reply(pr, opening!.commentId, `${login} here`);
    }

    const listed = await reviews.listReviewComments(pr);

    expect(listed.map((c) => [c.login, c.association])).toEqual([
      ['caravel[bot]', 'NONE'],
      ['acme', 'OWNER'],
      ['ada', 'COLLABORATOR'],
      ['grace', 'MEMBER'],
      ['mallory', 'NONE'],
    ]);
  });

  it('dismisses an approval, and reports a verdict on one’s own pull request refused', async () => {
    const approved = await reviews.createReview(pr, {
      commit_id: HEAD,
      event: 'APPROVE',
      body: 'lgtm',
      comments: [],
    });
    await reviews.dismissReview(pr, approved.kind === 'created' ? approved.reviewId : '', 'stale');
    expect((await reviews.listReviews(pr))[0]?.state).toBe('DISMISSED');

    github.setReviewablePull('acme/widgets', 7, { author: 'caravel[bot]' });
    expect(
      await reviews.createReview(pr, {
        commit_id: HEAD,
        event: 'APPROVE',
        body: 'x',
        comments: [],
      }),
    ).toEqual({
      kind: 'rejected',
      messages: ['Can not approve your own pull request', 'Unprocessable Entity'],
    });
  });

  it('starts a check run in progress and completes it', async () => {
    const id = await reviews.startCheck(pr, {
      name: 'Caravel Review',
      headSha: HEAD,
      output: { title: 'Review in progress', summary: 's' },
    });
    await reviews.completeCheck(pr, id, {
      conclusion: 'success',
      output: { title: 'No issues found', summary: 'No issues found' },
    });

    const [run] = github.reviews.checkRuns.get('acme/widgets') ?? [];
    expect(run).toMatchObject({
      id: Number(id),
      head_sha: HEAD,
      status: 'completed',
      conclusion: 'success',
      output: { title: 'No issues found' },
    });
    expect(github.callsTo({ method: 'POST', path: '/check-runs' })[0]?.body).toMatchObject({
      status: 'in_progress',
    });
  });
});
