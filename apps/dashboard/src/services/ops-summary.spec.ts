import { describe, expect, it } from '@jest/globals';
import type { OpsBucketRow } from '@caravel/db';
import { daysOf, summarise } from './ops-summary.js';

function bucket(overrides: Partial<OpsBucketRow>): OpsBucketRow {
  return {
    day: '2026-04-01',
    repository: 'acme/web',
    person: 'github:octocat',
    runs: 1,
    ended: 1,
    failed: 0,
    ciFixes: 0,
    ciFixCostUsd: 0,
    modelCalls: 1,
    inputTokens: 10,
    outputTokens: 5,
    costUsd: 0.1,
    ...overrides,
  };
}

describe('the ops summary', () => {
  const since = new Date('2026-04-01T00:00:00Z');
  const until = new Date('2026-04-04T00:00:00Z');

  it('has every day of the window, empty ones included', () => {
    expect(daysOf(since, until)).toEqual(['2026-04-01', '2026-04-02', '2026-04-03']);
  });

  it('divides cost by ended runs, CI fixes and merged pull requests, per repository and person', () => {
    const summary = summarise({
      since,
      until,
      buckets: [
        bucket({ costUsd: 0.1, ended: 1 }),
        bucket({ day: '2026-04-03', costUsd: 0.2, ended: 1, ciFixes: 1, ciFixCostUsd: 0.2 }),
        bucket({ repository: 'acme/api', person: 'github:hubot', runs: 2, ended: 0, costUsd: 3 }),
      ],
      durations: [{ day: null, runs: 2, p50Seconds: 30, p99Seconds: 90 }],
      pullRequests: [
        {
          repository: 'acme/web',
          person: 'github:octocat',
          opened: 2,
          merged: 2,
          mergedCostUsd: 0.9,
        },
      ],
    });
    expect(summary.totals).toMatchObject({
      runs: 4,
      ended: 2,
      costUsd: 3.3,
      costPerRunUsd: 1.65,
      costPerCiFixUsd: 0.2,
      costPerMergedPullRequestUsd: 0.45,
      p50Seconds: 30,
    });
    expect(summary.days.map((d) => [d.day, d.costUsd])).toEqual([
      ['2026-04-01', 3.1],
      ['2026-04-02', 0],
      ['2026-04-03', 0.2],
    ]);
    expect(summary.byRepository.map((g) => [g.key, g.costPerRunUsd, g.pullRequestsMerged])).toEqual(
      [
        ['acme/api', null, 0],
        ['acme/web', 0.15, 2],
      ],
    );
    expect(summary.byPerson.map((g) => g.key)).toEqual(['github:hubot', 'github:octocat']);
  });

  it("divides the reviewer's cost by the findings a commit fixed, overall and per repository", () => {
    const summary = summarise({
      since,
      until,
      buckets: [bucket({})],
      durations: [],
      pullRequests: [],
      reviews: [
        { repository: 'acme/web', reviewCostUsd: 1.2, findingsRaised: 5, findingsAccepted: 3 },
        { repository: 'acme/api', reviewCostUsd: 0.3, findingsRaised: 1, findingsAccepted: 0 },
      ],
    });
    expect(summary.totals).toMatchObject({
      reviewCostUsd: 1.5,
      findingsAccepted: 3,
      costPerAcceptedFindingUsd: 0.5,
    });
    const byRepository = summary.byRepository.map((g) => [g.key, g.costPerAcceptedFindingUsd]);
    expect(byRepository).toEqual([
      ['acme/web', 0.4],
      ['acme/api', null],
    ]);
    // The reviewer's runs are no person's: no person row carries them.
    expect(summary.byPerson.every((g) => g.reviewCostUsd === 0)).toBe(true);
  });
});
