import { describe, expect, it } from '@jest/globals';
import { githubReviewThreadId, ReviewRequestedV1, type EnvelopeOf } from '@caravel/contracts';
import type { FindingRepository, ReviewLedgerRow } from '@caravel/db';
import { strictMock } from '@caravel/testing/doubles';
import { ReviewRequestsService } from './review-requests.service.js';

const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

function request(data: Partial<EnvelopeOf<typeof ReviewRequestedV1>['data']> = {}) {
  const fixture = ReviewRequestedV1.fixture();
  return { ...fixture, data: { ...fixture.data, ...data } };
}

describe('ReviewRequestsService', () => {
  it('opens the ledger of the canonical reviewer thread and records the head', async () => {
    const threadId = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 42 });
    const ledger = { threadId, headSha: HEAD } as ReviewLedgerRow;
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
      },
      'findings',
    );

    await new ReviewRequestsService(findings).onRequested(
      request({
        threadId,
        repository: { owner: 'Acme', name: 'Widgets' },
        pullRequest: { number: 42, headSha: HEAD.toUpperCase(), draft: false },
      }),
    );

    expect(calls).toEqual([
      ['open', { threadId, owner: 'acme', repo: 'widgets', number: 42 }],
      ['move', threadId, { headSha: HEAD }],
    ]);
  });

  it('refuses a request naming another thread for the pull request, touching nothing', async () => {
    const findings = strictMock<FindingRepository>({}, 'findings');
    const other = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 43 });

    await expect(
      new ReviewRequestsService(findings).onRequested(request({ threadId: other })),
    ).rejects.toMatchObject({ code: 'MESSAGE_MALFORMED', retryable: false });
  });
});
