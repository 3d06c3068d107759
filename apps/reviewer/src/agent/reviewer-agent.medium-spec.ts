import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type CannedToolCall } from '@caravel/agent';
import { CannedChatModel } from '@caravel/agent/langchain';
import { FindingRepository, openDatabase, type Database } from '@caravel/db';
import { PR_DIFF, PR_LINES, sha } from '@caravel/findings/testing';
import { GitHubApi, GitHubReviews, type PullRequestRef } from '@caravel/integrations';
import { FakeGitHub } from '@caravel/testing';
import type { BaseMessage } from '@langchain/core/messages';
import type { PreparedReview } from '../preparation/prepare-review.js';
import { FindingThreadsService } from '../publish/finding-threads.service.js';
import { PublishReviewService } from '../publish/publish-review.service.js';
import type { ReviewRunContext } from './review-run.context.js';
import { buildReviewerAgent } from './reviewer-agent.js';

const BOT = 'caravel[bot]';
const REPO = 'acme/widgets';
const HEAD = sha('a');
const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i);
/** What GitHub takes comments on in PR_DIFF (src/app.ts one hunk, docs/guide.md added). */
const COMMENTABLE = {
  'src/app.ts': { RIGHT: range(8, 20), LEFT: range(8, 18) },
  'docs/guide.md': { RIGHT: range(1, 3) },
};
const PREPARED: PreparedReview = {
  headSha: HEAD,
  mergeBaseSha: sha('0'),
  range: { kind: 'pull_request', base: sha('0'), head: HEAD },
  pullRequestDiff: { text: PR_DIFF, lines: PR_LINES },
  rangeDiff: { text: PR_DIFF, lines: PR_LINES },
  instructions: [],
  since: null,
  briefContent: {
    pullRequest: { owner: 'acme', repo: 'widgets', number: 1 },
    headSha: HEAD,
    range: { kind: 'pull_request', base: sha('0'), head: HEAD },
    changed: PR_LINES,
    instructions: [],
    personInstructions: null,
    requestInstructions: null,
    reviewStyle: null,
    text: null,
  },
};

const finding = (lines: [number, number], extra: Record<string, unknown> = {}) => ({
  severity: 'high',
  confidence: 'high',
  category: 'correctness',
  title: `Problem on ${lines.join('-')}`,
  file: 'src/app.ts',
  start_line: lines[0],
  end_line: lines[1],
  description: `new${lines[0]} dereferences a user that may be missing (${randomUUID()}).`,
  ...extra,
});

/** The content of each tool message, by tool name, in order. */
const observations = (messages: BaseMessage[]) =>
  messages
    .filter((m) => m.type === 'tool')
    .map(
      (m) =>
        [
          (m as { name?: string }).name,
          typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
        ] as const,
    );

// The reviewer's graph driven by a scripted model through its real tools: a ledger on PGlite, and
// GitHub as a loopback fake that Octokit talks to unmodified.
describe('the reviewer agent', () => {
  let database: Database;
  let findings: FindingRepository;
  let fake: FakeGitHub;
  let github: GitHubReviews;
  let pulls = 0;

  beforeAll(async () => {
    database = await openDatabase({ url: 'pglite:memory' });
    findings = new FindingRepository(database.db);
    fake = new FakeGitHub().addUserToken('ghu_caravel', BOT).addRepository(REPO);
    await fake.start();
    github = new GitHubReviews(
      new GitHubApi({ baseUrl: fake.origin, tokens: () => Promise.resolve('ghu_caravel') }),
    );
  }, 120_000);

  afterAll(async () => {
    await fake?.close();
    await database?.close();
  });

  /** The context a run of the pull request's reviewer thread is bound to. */
  function contextFor(pr: PullRequestRef, threadId: string, approveCleanReviews = false) {
    const publisher = new PublishReviewService(findings, github, BOT);
    const context: ReviewRunContext = {
      threadId,
      pullRequest: pr,
      prepared: PREPARED,
      findings,
      github,
      threads: new FindingThreadsService(findings, github),
      now: () => new Date(),
      publish: (ask) =>
        publisher.publish({
          threadId,
          pullRequest: pr,
          headSha: HEAD,
          changedLines: PR_LINES,
          ...(ask.threshold ? { threshold: ask.threshold } : {}),
          verdict: {
            verdictRequested: false,
            ownPullRequest: false,
            approveCleanReviews,
            ...(ask.proposed ? { proposed: ask.proposed } : {}),
          },
        }),
    };
    return context;
  }

  /** Runs the reviewer's agent with a scripted model: one turn per list of tool calls. */
  async function runScript(context: ReviewRunContext, turns: CannedToolCall[][]) {
    const model = new CannedChatModel({
      responses: [
        ...turns.map((toolCalls, i) => ({ origin: `turn ${i}`, toolCalls })),
        { origin: 'end', content: 'Review published.' },
      ],
      file: 'reviewer-agent.medium-spec.ts',
      kind: 'scripted',
    });
    const agent = buildReviewerAgent({ model, context, workspace: null, events: { emit() {} } });
    return observations(await agent.run('Review acme/widgets.'));
  }

  /** Reviews a new pull request with the scripted turns; returns what the run left. */
  async function review(turns: CannedToolCall[][], approveCleanReviews = false) {
    pulls += 1;
    const pr: PullRequestRef = { repository: { owner: 'acme', name: 'widgets' }, number: pulls };
    const threadId = randomUUID();
    fake.setReviewablePull(REPO, pr.number, { author: 'alice', commentable: COMMENTABLE });
    await findings.openLedger({ threadId, owner: 'acme', repo: 'widgets', number: pr.number });
    const said = await runScript(contextFor(pr, threadId, approveCleanReviews), turns);
    const key = `${REPO}#${pr.number}`;
    return {
      pr,
      threadId,
      said,
      reviews: fake.reviews.reviews.get(key) ?? [],
      comments: fake.reviews.comments.get(key) ?? [],
      ledger: await findings.list(threadId),
    };
  }

  it('files diff-anchored findings and publishes one gated review with inline comments', async () => {
    const inDiff = finding([10, 11], { suggestion: 'a\nb\nc\nd\ne' });
    const { said, reviews, comments, ledger } = await review([
      [{ name: 'fetch_review_diff', args: {} }],
      [{ name: 'list_findings', args: {} }],
      [{ name: 'add_finding', args: finding([2, 3]) }],
      [{ name: 'add_finding', args: inDiff }],
      [{ name: 'add_finding', args: inDiff }],
      [{ name: 'add_finding', args: finding([12, 12], { confidence: 'low', suggestion: 'x' }) }],
      [{ name: 'publish_review', args: { verdict: 'approve' } }],
    ]);

    expect(said.map(([name]) => name)).toEqual([
      'fetch_review_diff',
      'list_findings',
      'add_finding',
      'add_finding',
      'add_finding',
      'add_finding',
      'publish_review',
    ]);
    expect(said[0]?.[1]).toContain('<untrusted_content source="pull_request_diff">');
    expect(said[0]?.[1]).toContain('+new10');
    expect(said[1]?.[1]).toBe('No findings.');
    expect(said[2]?.[1]).toMatch(/^Error \(PRECONDITION_FAILED\).*line/s);
    expect(said[3]?.[1]).toContain('Suggestion dropped: 5 lines, at most 4');
    expect(said[4]?.[1]).toMatch(/^duplicate: f_[0-9a-f]{10}/);
    expect(said[6]?.[1]).toContain('approve_with_open_findings');

    expect(ledger).toHaveLength(2);
    expect(ledger.map((f) => [f.startLine, f.suggestion, f.confidence]).sort()).toEqual([
      [10, null, 'high'],
      [12, 'x', 'low'],
    ]);
    expect(reviews).toHaveLength(1);
    expect(reviews[0]).toMatchObject({ state: 'COMMENTED', commit_id: HEAD });
    expect(comments.map((c) => [c.start_line, c.line, c.side]).sort()).toEqual([
      [null, 12, 'RIGHT'],
      [10, 11, 'RIGHT'],
    ]);
  }, 120_000);

  it('approves a clean review when the repository allows it', async () => {
    const { reviews } = await review(
      [
        [{ name: 'list_findings', args: {} }],
        [{ name: 'publish_review', args: { verdict: 'approve' } }],
      ],
      true,
    );

    expect(reviews.map((r) => r.state)).toEqual(['APPROVED']);
  }, 60_000);

  it('dismisses a wrong finding with its note posted verbatim, and never calls it fixed at the head', async () => {
    const filed = finding([11, 11]);
    const first = await review([
      [{ name: 'add_finding', args: filed }],
      [{ name: 'publish_review', args: {} }],
    ]);
    const [wrong] = first.ledger;
    expect(first.comments).toHaveLength(1);

    const said = await runScript(contextFor(first.pr, first.threadId), [
      [
        {
          name: 'resolve_finding_thread',
          args: { finding_id: wrong?.id, resolution: 'fixed', note: 'Fixed.' },
        },
      ],
      [
        {
          name: 'resolve_finding_thread',
          args: {
            finding_id: wrong?.id,
            resolution: 'dismissed',
            note: 'Not a bug: user is checked above.',
          },
        },
      ],
    ]);

    expect(said[0]?.[1]).toMatch(/^Error \(CONFLICT\)/);
    expect(said[1]?.[1]).toBe(`${wrong?.id}: thread resolved.`);
    const replies = fake.state.reviewComments.filter(
      (c) => c.in_reply_to_id === Number(first.comments[0]?.id),
    );
    expect(replies.map((r) => r.body)).toEqual(['Not a bug: user is checked above.']);
    expect((await findings.get(wrong?.id ?? ''))?.status).toBe('dismissed');
  }, 60_000);
});
