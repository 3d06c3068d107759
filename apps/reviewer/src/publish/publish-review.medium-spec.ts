import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { FindingRepository, openDatabase, type Database } from '@caravel/db';
import {
  changedLineSet,
  newFindingId,
  renderReviewMarker,
  resolveFinding,
  type Finding,
} from '@caravel/findings';
import { aFinding, PR_LINES, sha } from '@caravel/findings/testing';
import { GitHubApi, GitHubReviews, type PullRequestRef } from '@caravel/integrations';
import { describeEachDatabase, FakeGitHub } from '@caravel/testing';
import { FindingThreadsService } from './finding-threads.service.js';
import { PublishReviewService, type PublishRequest } from './publish-review.service.js';
import { ReviewCheckService } from './review-check.service.js';
import { approvesCleanReview, expectedVerdict, VERDICT_CASES } from '../testing/verdict-matrix.js';

const BOT = 'caravel[bot]';
const REPO = 'acme/widgets';
const HEAD = sha('a');
const NEXT = sha('b');
const AT = '2026-03-02T09:00:00.000Z';
const range = (from: number, to: number): number[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** What GitHub accepts comments on in PR_DIFF (src/app.ts one hunk, docs/guide.md added). */
const PR_COMMENTABLE = {
  'src/app.ts': { RIGHT: range(8, 20), LEFT: range(8, 18) },
  'docs/guide.md': { RIGHT: range(1, 3) },
};

await describeEachDatabase('publish_review', openDatabase, (target) => {
  let database: Database;
  let findings: FindingRepository;
  let fake: FakeGitHub;
  let github: GitHubReviews;
  let service: PublishReviewService;
  let pulls = 0;

  beforeAll(async () => {
    database = await target.open();
    findings = new FindingRepository(database.db);
    fake = new FakeGitHub().addUserToken('ghu_caravel', BOT).addRepository(REPO);
    await fake.start();
    const api = new GitHubApi({
      baseUrl: fake.origin,
      tokens: () => Promise.resolve('ghu_caravel'),
    });
    github = new GitHubReviews(api);
    service = new PublishReviewService(findings, github, BOT);
  });

  afterAll(async () => {
    await fake?.close();
    await database?.close();
  });

  /** A new pull request by `author`, with its ledger holding `filed`. */
  const newPull = async (
    filed: Finding[],
    author = 'alice',
  ): Promise<{ pr: PullRequestRef; threadId: string }> => {
    pulls += 1;
    const pr = { repository: { owner: 'acme', name: 'widgets' }, number: pulls };
    const threadId = randomUUID();
    fake.setReviewablePull(REPO, pr.number, { author, commentable: PR_COMMENTABLE });
    await findings.openLedger({ threadId, owner: 'acme', repo: 'widgets', number: pr.number });
    for (const finding of filed) await findings.append(threadId, finding);
    return { pr, threadId };
  };

  const request = (
    pull: { pr: PullRequestRef; threadId: string },
    overrides: Partial<PublishRequest> = {},
  ): PublishRequest => ({
    threadId: pull.threadId,
    pullRequest: pull.pr,
    headSha: HEAD,
    changedLines: PR_LINES,
    verdict: { verdictRequested: false, ownPullRequest: false, approveCleanReviews: false },
    ...overrides,
  });

  /** A finding of Caravel's at `line(s)` of src/app.ts, filed and confirmed at HEAD. */
  const at = (startLine: number, endLine = startLine, overrides: Partial<Finding> = {}) =>
    aFinding({
      id: newFindingId(),
      startLine,
      endLine,
      severity: 'high',
      description: `Problem on ${startLine}-${endLine} (${randomUUID()}).`,
      ...overrides,
    });

  const reviewsOn = (pr: PullRequestRef) => fake.reviews.reviews.get(`${REPO}#${pr.number}`) ?? [];
  const commentsOn = (pr: PullRequestRef) =>
    fake.reviews.comments.get(`${REPO}#${pr.number}`) ?? [];
  const threadsOn = (pr: PullRequestRef) => fake.reviews.threads.get(`${REPO}#${pr.number}`) ?? [];
  /** Replies to review comments (the fake keeps them with every review comment it knows). */
  const repliesTo = (commentId: string | null | undefined) =>
    fake.state.reviewComments.filter((c) => c.in_reply_to_id === Number(commentId));

  it('posts one review: capped inline comments with suggestions, the rest counted', async () => {
    const posted = range(8, 14).map((line) => at(line));
    const suggested = at(16, 17, { suggestion: 'if (user) greet(user);' });
    const low = at(19, 19, { severity: 'low' });
    const pull = await newPull([...posted, suggested, low]);

    const outcome = await service.publish(request(pull));

    expect(outcome).toMatchObject({ posted: true, event: 'COMMENT', belowThreshold: 1 });
    expect(outcome.surfaced).toHaveLength(6);
    expect(outcome.overCap).toBe(2);
    const [review] = reviewsOn(pull.pr);
    expect(reviewsOn(pull.pr)).toHaveLength(1);
    expect(review).toMatchObject({ state: 'COMMENTED', commit_id: HEAD, user: { login: BOT } });
    expect(review?.body).toContain('<!-- caravel-review');
    expect(review?.body).toMatch(/1 below the medium threshold/);
    const comments = commentsOn(pull.pr);
    expect(comments.map((c) => [c.line, c.start_line, c.side])).toEqual([
      [8, null, 'RIGHT'],
      [9, null, 'RIGHT'],
      [10, null, 'RIGHT'],
      [11, null, 'RIGHT'],
      [12, null, 'RIGHT'],
      [13, null, 'RIGHT'],
    ]);
    const ledger = await findings.list(pull.threadId);
    const surfaced = ledger.filter((f) => f.surface.reviewId === String(review?.id));
    expect(surfaced.map((f) => f.surface.commentId).sort()).toEqual(
      comments.map((c) => String(c.id)).sort(),
    );
    expect(surfaced.every((f) => f.surface.threadId?.startsWith('PRRT_'))).toBe(true);
    expect(await findings.getLedger(pull.threadId)).toMatchObject({
      lastReviewedSha: HEAD,
      verdictEvent: 'COMMENT',
      verdictReviewId: String(review?.id),
      verdictSha: HEAD,
    });

    const second = await service.publish(request(pull, { threshold: 'low' }));
    expect(second.posted).toBe(true);
    expect(commentsOn(pull.pr).find((c) => c.line === 17)?.body).toContain('```suggestion');
  });

  it('posts nothing twice when a publish is retried after its answer was lost', async () => {
    const pull = await newPull([at(10, 12), at(15)]);
    const lossy = new PublishReviewService(
      findings,
      new Proxy(github, {
        get: (client, name) =>
          name === 'createReview'
            ? async (...args: Parameters<GitHubReviews['createReview']>) => {
                await client.createReview(...args);
                throw new Error('socket hang up');
              }
            : (Reflect.get(client, name) as unknown),
      }),
      BOT,
    );
    await expect(lossy.publish(request(pull))).rejects.toThrow('socket hang up');
    expect((await findings.list(pull.threadId)).every((f) => f.surface.reviewId === null)).toBe(
      true,
    );

    const retry = await service.publish(request(pull));

    expect(retry).toMatchObject({ posted: false, skipReason: 'empty_re_review' });
    expect(retry.recognised).toHaveLength(2);
    expect(reviewsOn(pull.pr)).toHaveLength(1);
    expect(commentsOn(pull.pr)).toHaveLength(2);
    const ledger = await findings.list(pull.threadId);
    expect(ledger.every((f) => f.surface.state === 'surfaced' && f.surface.commentId)).toBe(true);
  });

  it('drops the findings GitHub cannot place (422) and posts the rest on the second try', async () => {
    const kept = at(10, 12);
    const outside = at(15);
    const pull = await newPull([kept, outside]);
    // GitHub's diff has moved on: src/app.ts now changes lines 8-12 only.
    const fresh = [
      'diff --git a/src/app.ts b/src/app.ts',
      '--- a/src/app.ts',
      '+++ b/src/app.ts',
      '@@ -8,3 +8,5 @@',
      ' c8',
      ' c9',
      '-old10',
      '+new10',
      '+new11',
      '+new12',
      '',
    ].join('\n');
    fake.setReviewablePull(REPO, pull.pr.number, {
      author: 'alice',
      commentable: { 'src/app.ts': { RIGHT: range(8, 12), LEFT: range(8, 10) } },
    });

    const outcome = await service.publish(
      request(pull, { refreshChangedLines: () => Promise.resolve(changedLineSet(fresh)) }),
    );

    expect(outcome).toMatchObject({ posted: true, summaryOnly: false, surfaced: [kept.id] });
    expect(outcome.unresolvable.map((u) => u.findingId)).toEqual([outside.id]);
    const path = `/repos/${REPO}/pulls/${pull.pr.number}/reviews`;
    expect(fake.callsTo({ method: 'POST', path: new RegExp(`^${path}$`) })).toHaveLength(2);
    expect(reviewsOn(pull.pr)).toHaveLength(1);
    expect(commentsOn(pull.pr).map((c) => c.line)).toEqual([12]);
    expect((await findings.get(outside.id))?.surface.reviewId).toBeNull();
  });

  it('on an empty re-review posts no review, resolves fixed findings and advances the head', async () => {
    const fixed = at(10, 12);
    const open = at(15);
    const pull = await newPull([fixed, open]);
    await service.publish(request(pull));
    const note = 'Fixed: `user` is checked before the loop now.';
    await findings.update(fixed.id, (f) => resolveFinding(f, { sha: NEXT, note, at: AT }));

    const outcome = await service.publish(request(pull, { headSha: NEXT }));

    expect(outcome).toMatchObject({ posted: false, skipReason: 'empty_re_review' });
    expect(outcome.threads).toEqual([{ findingId: fixed.id, outcome: 'resolved' }]);
    expect(reviewsOn(pull.pr)).toHaveLength(1);
    const stored = await findings.get(fixed.id);
    const [reply, ...more] = repliesTo(stored?.surface.commentId);
    expect(more).toEqual([]);
    expect(reply?.body).toBe(note);
    expect(stored?.surface).toMatchObject({
      state: 'resolved',
      resolutionCommentId: String(reply?.id),
    });
    const resolved = threadsOn(pull.pr)
      .filter((t) => t.isResolved)
      .map((t) => t.id);
    expect(resolved).toEqual([stored?.surface.threadId]);
    expect((await findings.get(open.id))?.status).toBe('open');
    // An empty re-review posts nothing: the ledger's verdict says so, at the new head.
    expect(await findings.getLedger(pull.threadId)).toMatchObject({
      headSha: NEXT,
      lastReviewedSha: NEXT,
      verdictReviewId: null,
      verdictSha: NEXT,
    });
  });

  it('leaves a finding open when GitHub will not resolve its thread, and posts its note once', async () => {
    const finding = at(10, 12);
    const pull = await newPull([finding]);
    await service.publish(request(pull));
    const surfaced = (await findings.get(finding.id))!;
    fake.reviews.unresolvable.add(surfaced.surface.threadId!);
    const threads = new FindingThreadsService(findings, github);
    const closing = { kind: 'resolve' as const, sha: NEXT, note: 'Fixed by the bounds check.' };

    const failed = await threads.close(pull.pr, finding.id, closing);

    expect(failed).toMatchObject({ outcome: 'failed' });
    const after = await findings.get(finding.id);
    expect(after?.status).toBe('open');
    expect(after?.surface).toMatchObject({ state: 'error' });
    expect(after?.surface.resolutionCommentId).not.toBeNull();

    fake.reviews.unresolvable.clear();
    expect(await threads.close(pull.pr, finding.id, closing)).toEqual({
      findingId: finding.id,
      outcome: 'resolved',
    });
    expect((await findings.get(finding.id))?.status).toBe('resolved');
    expect(repliesTo(surfaced.surface.commentId).map((c) => c.body)).toEqual([closing.note]);
    expect(threadsOn(pull.pr)[0]?.isResolved).toBe(true);
  });

  it('runs a check: in progress at the start, success or neutral at the end', async () => {
    const pull = await newPull([]);
    const checks = new ReviewCheckService(findings, github);
    const runs = () => fake.reviews.checkRuns.get(REPO) ?? [];

    const first = await checks.start(pull.threadId, pull.pr, HEAD, 'https://caravel.test/t/1');
    expect(runs().find((r) => String(r.id) === first)).toMatchObject({
      status: 'in_progress',
      head_sha: HEAD,
      details_url: 'https://caravel.test/t/1',
    });
    expect((await findings.getLedger(pull.threadId))?.checkRunId).toBe(first);
    await checks.finish(pull.threadId, pull.pr, { kind: 'published', openFindings: 2 });
    expect(runs().find((r) => String(r.id) === first)).toMatchObject({
      status: 'completed',
      conclusion: 'success',
      output: { title: 'Found 2 potential issues' },
    });

    const second = await checks.start(pull.threadId, pull.pr, NEXT);
    await checks.finish(pull.threadId, pull.pr, { kind: 'died' });
    expect(runs().find((r) => String(r.id) === second)).toMatchObject({
      conclusion: 'neutral',
    });
    expect(await checks.finish(pull.threadId, pull.pr, { kind: 'died' })).toBe(false);
  });

  it('gates the verdict over every combination, dismissing a stale approval', async () => {
    const seen: string[] = [];
    for (const [mask, c] of VERDICT_CASES.entries()) {
      const { asked, open, own, approves, stale } = c;
      const pull = await newPull(open ? [at(10, 12)] : [], own ? BOT : 'alice');
      const approval = stale ? standingApproval(pull.pr) : null;

      const outcome = await service.publish(
        request(pull, {
          verdict: {
            verdictRequested: asked,
            ownPullRequest: own,
            approveCleanReviews: approvesCleanReview(c, mask, pull.pr.repository),
          },
        }),
      );

      const { event, posted, dismissed } = expectedVerdict(c);
      const state = {
        APPROVE: 'APPROVED',
        REQUEST_CHANGES: 'CHANGES_REQUESTED',
        COMMENT: 'COMMENTED',
      };
      const label = `asked=${asked} open=${open} own=${own} approves=${approves} stale=${stale}`;
      const newReviews = reviewsOn(pull.pr).filter((r) => r !== approval);
      seen.push(`${label}: ${newReviews.map((r) => r.state).join(',') || 'none'}`);
      expect(`${label}: ${posted ? state[event] : 'none'}`).toBe(seen.at(-1));
      expect(outcome.event).toBe(event);
      expect(approval?.state ?? 'none').toBe(
        stale ? (dismissed ? 'DISMISSED' : 'APPROVED') : 'none',
      );
    }
    expect(seen).toHaveLength(32);
  });

  /** A Caravel approval of an earlier head, standing on the pull request. */
  const standingApproval = (pr: PullRequestRef) => {
    const id = Number(`9${pr.number}`);
    const body = renderReviewMarker({
      v: 1,
      pr: pr.number,
      head: sha('c'),
      threshold: 'medium',
      findings: [],
    });
    const review = {
      id,
      node_id: `PRR_${id}`,
      user: { login: BOT, type: 'Bot' },
      body: `${body}\n✅ no issues found.`,
      state: 'APPROVED' as const,
      commit_id: sha('c'),
      submitted_at: AT,
      html_url: `${fake.origin}/${REPO}/pull/${pr.number}#pullrequestreview-${id}`,
      pull_request_url: `${fake.origin}/repos/${REPO}/pulls/${pr.number}`,
      author_association: 'NONE',
    };
    fake.reviews.reviews.set(`${REPO}#${pr.number}`, [review]);
    return review;
  };
});
