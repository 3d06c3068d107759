import { describe, expect, it } from '@jest/globals';
import { githubReviewThreadId } from '@caravel/contracts';
import type {
  FindingRepository,
  ReviewedPullRequestRepository,
  ReviewLedgerRow,
} from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { isAppError } from '@caravel/errors';
import type { Finding } from '@caravel/findings';
import { aFinding, sha, T0 } from '@caravel/findings/testing';
import { strictMock } from '@caravel/testing/doubles';
import { ReviewLedgerService } from './review-ledger.service.js';

const PR = { owner: 'acme', repo: 'widgets', number: 7 };
const THREAD = githubReviewThreadId(PR);

function ledgerRow(): ReviewLedgerRow {
  return factory.reviewLedger({
    threadId: THREAD,
    ...PR,
    headSha: sha('c'),
    lastReviewedSha: sha('b'),
    mergeBaseSha: sha('a'),
    createdAt: new Date(T0),
    updatedAt: new Date(T0),
  });
}

function service(findings: Finding[], ledger: ReviewLedgerRow | null = ledgerRow()) {
  const repository = strictMock<FindingRepository>(
    {
      getLedger: (threadId: string) => Promise.resolve(threadId === THREAD ? ledger : null),
      list: (threadId: string) => Promise.resolve(threadId === THREAD ? findings : []),
    },
    'findings',
  );
  const reviewed = strictMock<ReviewedPullRequestRepository>(
    {
      list: () =>
        Promise.resolve([
          {
            ...ledgerRow(),
            open: 2,
            resolved: 0,
            dismissed: 1,
            updatedAt: new Date(T0),
          },
        ]),
    },
    'reviewed',
  );
  return new ReviewLedgerService(repository, reviewed, {
    signIn: { webUrl: 'https://ghe.example/' },
  } as never);
}

describe('the review ledger as the dashboard shows it', () => {
  const caravels = aFinding();
  const copilots = aFinding({
    author: { kind: 'bot', login: 'copilot-pull-request-reviewer[bot]', bot: 'copilot' },
    reports: [
      {
        author: { kind: 'bot', login: 'copilot-pull-request-reviewer[bot]', bot: 'copilot' },
        commentId: '901',
        reviewId: null,
        threadId: null,
        url: 'https://github.com/acme/widgets/pull/7#discussion_r901',
        sha: sha('a'),
        at: T0,
      },
    ],
  });
  const dismissed = aFinding({
    author: { kind: 'person', login: 'octocat' },
    status: 'dismissed',
    resolution: {
      kind: 'dismissed',
      sha: sha('b'),
      note: 'intended: the value is validated upstream',
      by: { kind: 'person', login: 'octocat' },
      at: T0,
    },
  });

  it('lists every finding with who raised it, its links and the counts by status', async () => {
    const view = await service([caravels, copilots, dismissed]).ledger(PR);
    expect(view).toMatchObject({
      pullRequest: PR,
      threadId: THREAD,
      headSha: sha('c'),
      lastReviewedSha: sha('b'),
      counts: { open: 2, resolved: 0, dismissed: 1 },
    });
    expect(view.findings.map((f) => [f.raisedBy.kind, f.raisedBy.name, f.status])).toEqual([
      ['caravel', 'caravel', 'open'],
      ['bot', 'copilot-pull-request-reviewer[bot]', 'open'],
      ['person', 'octocat', 'dismissed'],
    ]);
    expect(view.findings[1]?.links).toEqual([
      'https://github.com/acme/widgets/pull/7#discussion_r901',
    ]);
    expect(view.findings[2]?.resolution).toBe('dismissed');
  });

  it("shows the latest publish's verdict, and none before the first publish", async () => {
    const published = {
      ...ledgerRow(),
      verdictEvent: 'REQUEST_CHANGES' as const,
      verdictReason: 'changes_requested' as const,
      verdictReviewId: '555',
      verdictSha: sha('b'),
      verdictAt: new Date(T0),
    };
    const view = await service([caravels], published).ledger(PR);
    expect(view.verdict).toEqual({
      event: 'REQUEST_CHANGES',
      reason: 'changes_requested',
      posted: true,
      reviewId: '555',
      headSha: sha('b'),
      at: new Date(T0).toISOString(),
    });
    expect((await service([caravels]).ledger(PR)).verdict).toBeNull();
  });

  it('says why the head was not reviewed, and nothing once a review starts', async () => {
    const skipped = {
      ...ledgerRow(),
      skipReason: 'reviews are off: no reviewer model is configured',
      skippedSha: sha('c'),
      skippedAt: new Date(T0),
    };
    expect((await service([], skipped).ledger(PR)).notReviewed).toEqual({
      reason: 'reviews are off: no reviewer model is configured',
      headSha: sha('c'),
      at: new Date(T0).toISOString(),
    });
    expect((await service([]).ledger(PR)).notReviewed).toBeNull();
  });

  it('lists reviewed pull requests with their links on the code host', async () => {
    const [listed] = await service([]).list({ limit: 10 });
    expect(listed).toMatchObject({
      pullRequest: PR,
      url: 'https://ghe.example/acme/widgets/pull/7',
      counts: { open: 2, resolved: 0, dismissed: 1 },
    });
  });

  it('filters by status and still counts them all', async () => {
    const view = await service([caravels, copilots, dismissed]).ledger(PR, 'dismissed');
    expect(view.findings.map((f) => f.id)).toEqual([dismissed.id]);
    expect(view.counts).toEqual({ open: 2, resolved: 0, dismissed: 1 });
  });

  it('says a pull request that was never reviewed has no ledger', async () => {
    const failure = await service([], null)
      .ledger(PR)
      .catch((error: unknown) => error);
    expect(isAppError(failure) && failure.code).toBe('NOT_FOUND');
    expect(isAppError(failure) && failure.message).toContain('acme/widgets#7');
  });
});
