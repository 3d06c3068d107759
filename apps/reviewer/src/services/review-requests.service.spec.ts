import { describe, expect, it, jest } from '@jest/globals';
import {
  githubReviewThreadId,
  PullRequestHeadMovedV1,
  ReviewRequestedV1,
  type EnvelopeOf,
} from '@caravel/contracts';
import type { FindingRepository, PullRequestHeadRepository, PullRequestHeadRow } from '@caravel/db';
import { factory } from '@caravel/db/testing';
import { Logger } from '@nestjs/common';
import { strictMock } from '@caravel/testing/doubles';
import { PUSHES_NOT_REVIEWED, ReviewRequestsService } from './review-requests.service.js';
import type { ReviewJob, ReviewRunsService } from './review-runs.service.js';

const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

/** The pushed heads the reviewer heard of: `since` finds `latest`; what it records is kept. */
function heads(latest: PullRequestHeadRow | null = null, recorded: unknown[] = []) {
  return strictMock<PullRequestHeadRepository>(
    {
      since: () => Promise.resolve(latest),
      record: (pullRequest, head) => {
        recorded.push([pullRequest, head]);
        return Promise.resolve();
      },
    },
    'heads',
  );
}

function request(data: Partial<EnvelopeOf<typeof ReviewRequestedV1>['data']> = {}) {
  const fixture = ReviewRequestedV1.fixture();
  return { ...fixture, data: { ...fixture.data, ...data } };
}

describe('ReviewRequestsService', () => {
  it('opens the ledger of the canonical reviewer thread and records the head', async () => {
    const threadId = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 42 });
    const ledger = factory.reviewLedger({ threadId, headSha: HEAD });
    const calls: unknown[] = [];
    const findings = strictMock<FindingRepository>(
      {
        openLedger: (key) => {
          calls.push(['open', key]);
          return Promise.resolve(ledger);
        },
        moveLedger: (id, heads) => {
          calls.push(['move', id, heads]);
          return Promise.resolve(ledger);
        },
        noteSkip: (id, skip) => {
          calls.push(['skip', id, skip]);
          return Promise.resolve(ledger);
        },
      },
      'findings',
    );

    await new ReviewRequestsService(findings, heads()).onRequested(
      request({
        threadId,
        repository: { owner: 'Acme', name: 'Widgets' },
        pullRequest: { number: 42, headSha: HEAD.toUpperCase(), draft: false },
      }),
    );

    expect(calls).toEqual([
      ['open', { threadId, owner: 'acme', repo: 'widgets', number: 42 }],
      ['move', threadId, { headSha: HEAD }],
      ['skip', threadId, { reason: 'reviews are off: the reviewer runs no reviews', sha: HEAD }],
    ]);
  });

  it('refuses a request naming another thread for the pull request, touching nothing', async () => {
    const findings = strictMock<FindingRepository>({}, 'findings');
    const other = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 43 });

    await expect(
      new ReviewRequestsService(findings, heads()).onRequested(request({ threadId: other })),
    ).rejects.toMatchObject({ code: 'MESSAGE_MALFORMED', retryable: false });
  });

  it('says at start, and for each request, why it does not review (reviews off)', async () => {
    const threadId = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 42 });
    const ledger = factory.reviewLedger({ threadId });
    const skips: unknown[] = [];
    const findings = strictMock<FindingRepository>(
      {
        openLedger: () => Promise.resolve(ledger),
        moveLedger: () => Promise.resolve(ledger),
        noteSkip: (_id, skip) => {
          skips.push(skip);
          return Promise.resolve(ledger);
        },
      },
      'findings',
    );
    const info = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const service = new ReviewRequestsService(
        findings,
        heads(),
        null,
        'no reviewer model is configured',
      );
      service.onModuleInit();
      expect(info.mock.calls.map(([line]) => String(line))).toEqual([
        "reviews are off: no reviewer model is configured; review requests only keep their pull requests' ledgers",
      ]);
      expect(await service.onRequested(request({ threadId }))).toBe(ledger);
      expect(warn.mock.calls.map(([line]) => String(line))).toEqual([
        `acme/widgets#42 at ${HEAD.slice(0, 7)} not reviewed: no reviewer model is configured`,
      ]);
      // The reason is data too: on the ledger, for the dashboard.
      expect(skips).toEqual([
        { reason: 'reviews are off: no reviewer model is configured', sha: HEAD },
      ]);
    } finally {
      info.mockRestore();
      warn.mockRestore();
    }
  });

  describe('with review runs', () => {
    const threadId = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 42 });
    const NEXT = '34c5c7793cb3b279e22454cb6750c80560547b3a';
    const pushed = () => {
      const fixture = PullRequestHeadMovedV1.fixture();
      return { ...fixture, data: { ...fixture.data, pullRequest: 42, headSha: NEXT } };
    };
    const runs = (jobs: ReviewJob[], reReview = true) =>
      strictMock<ReviewRunsService>(
        {
          review: (job) => {
            jobs.push(job);
            return Promise.resolve({} as Awaited<ReturnType<ReviewRunsService['review']>>);
          },
          reReviewsOnPush: () => reReview,
        },
        'runs',
      );
    const ledgerAt = (
      lastReviewedSha: string | null,
      moves: unknown[] = [],
      skips: unknown[] = [],
    ) =>
      strictMock<FindingRepository>(
        {
          noteSkip: (_id, skip) => {
            skips.push(skip);
            return Promise.resolve(factory.reviewLedger({ threadId }));
          },
          openLedger: () => Promise.resolve(factory.reviewLedger({ threadId })),
          getLedger: () =>
            Promise.resolve(factory.reviewLedger({ threadId, headSha: HEAD, lastReviewedSha })),
          moveLedger: (_id, heads) => {
            moves.push(heads);
            return Promise.resolve(factory.reviewLedger({ threadId }));
          },
        },
        'findings',
      );

    it('reviews a requested pull request without a verdict of its own asking', async () => {
      const jobs: ReviewJob[] = [];
      const skips: unknown[] = [];
      await new ReviewRequestsService(ledgerAt(null, [], skips), heads(), runs(jobs)).onRequested(
        request({ threadId }),
      );

      // A review starting lets go of any earlier reason it was not reviewed.
      expect(skips).toEqual([null]);
      expect(jobs).toEqual([
        expect.objectContaining({ threadId, number: 42, headSha: HEAD, author: 'octocat' }),
      ]);
      expect(jobs[0]?.verdictRequested).toBe(false);
    });

    it('reviews the head a push moved to after the request, when the push was handled first', async () => {
      const jobs: ReviewJob[] = [];
      const moves: unknown[] = [];
      const asked = request({ threadId });
      const asOf: unknown[] = [];
      const pushedSince = strictMock<PullRequestHeadRepository>(
        {
          since: (pullRequest, at) => {
            asOf.push([pullRequest, at]);
            return Promise.resolve({
              owner: 'acme',
              repo: 'widgets',
              number: 42,
              headSha: NEXT,
              seenAt: new Date(Date.parse(asked.occurredAt) + 1_000),
            });
          },
        },
        'heads',
      );
      await new ReviewRequestsService(ledgerAt(null, moves), pushedSince, runs(jobs)).onRequested(
        asked,
      );

      expect(asOf).toEqual([
        [{ owner: 'acme', repo: 'widgets', number: 42 }, new Date(asked.occurredAt)],
      ]);
      expect(moves).toEqual([{ headSha: NEXT }]);
      expect(jobs).toEqual([expect.objectContaining({ threadId, headSha: NEXT })]);
    });

    it('records each push with the time it was heard of, reviewed pull request or not', async () => {
      const recorded: unknown[] = [];
      const push = pushed();
      await new ReviewRequestsService(ledgerAt(null), heads(null, recorded), runs([])).onHeadMoved(
        push,
      );
      expect(recorded).toEqual([
        [
          { owner: 'acme', repo: 'widgets', number: 42 },
          { headSha: NEXT, at: new Date(push.occurredAt) },
        ],
      ]);
    });

    it('passes on a verdict the request asked for', async () => {
      const jobs: ReviewJob[] = [];
      await new ReviewRequestsService(ledgerAt(null), heads(), runs(jobs)).onRequested(
        request({ threadId, verdictRequested: true }),
      );
      expect(jobs[0]?.verdictRequested).toBe(true);
    });

    it('names who asked and what, for a request only: an auto-review was asked by nobody', async () => {
      const jobs: ReviewJob[] = [];
      const service = new ReviewRequestsService(ledgerAt(null), heads(), runs(jobs));
      const asked = { requestedBy: 'slack:U0PERSON', instructions: 'Check the null paths.' };
      await service.onRequested(request({ threadId, reason: 'requested', ...asked }));
      await service.onRequested(request({ threadId, reason: 'opened', ...asked }));

      expect(jobs.map((job) => [job.requestedBy, job.instructions])).toEqual([
        ['slack:U0PERSON', 'Check the null paths.'],
        [null, 'Check the null paths.'],
      ]);
    });

    it('reviews a push to a reviewed pull request on its reviewer thread, its author unknown', async () => {
      const jobs: ReviewJob[] = [];
      const moves: unknown[] = [];
      const outcome = await new ReviewRequestsService(
        ledgerAt(HEAD, moves),
        heads(),
        runs(jobs),
      ).onHeadMoved(pushed());

      expect(outcome).not.toBeNull();
      expect(moves).toEqual([{ headSha: NEXT }]);
      expect(jobs).toEqual([
        expect.objectContaining({ threadId, headSha: NEXT, author: null, verdictRequested: false }),
      ]);
    });

    it('leaves a push alone when the pull request was never reviewed, or its repository opts out', async () => {
      const jobs: ReviewJob[] = [];
      const moves: unknown[] = [];
      const skips: unknown[] = [];

      expect(
        await new ReviewRequestsService(ledgerAt(null, [], skips), heads(), runs(jobs)).onHeadMoved(
          pushed(),
        ),
      ).toBeNull();
      expect(skips).toEqual([]);
      await new ReviewRequestsService(
        ledgerAt(HEAD, moves, skips),
        heads(),
        runs(jobs, false),
      ).onHeadMoved(pushed());

      expect(jobs).toEqual([]);
      expect(moves).toEqual([{ headSha: NEXT }]);
      expect(skips).toEqual([{ reason: PUSHES_NOT_REVIEWED, sha: NEXT }]);
    });
  });
});
