import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import { aFinding, sha } from '@caravel/findings/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { seedRun } from '../testing/ops-seed.js';
import { CiWatchRepository } from './ci-watch.repository.js';
import { FindingRepository } from './finding.repository.js';
import { CI_FIX_REQUESTER, MERGED_STOP_REASON, OpsRepository } from './ops.repository.js';
import { ReviewedPullRequestRepository } from './reviewed-pull-request.repository.js';
import { ThreadPlanRepository } from './thread-plan.repository.js';
import { UserInstructionsRepository } from './user-instructions.repository.js';

const at = (iso: string) => new Date(iso);

await describeEachDatabase('dashboard queries: reviews and ops', openDatabase, (target) => {
  let database: Database;

  beforeAll(async () => {
    database = await target.open();
  });

  afterAll(async () => {
    await database?.close();
  });

  it('lists reviewed pull requests with their findings by status', async () => {
    const findings = new FindingRepository(database.db);
    const [quiet, busy] = [randomUUID(), randomUUID()];
    await findings.openLedger({ threadId: quiet, owner: 'acme', repo: 'web', number: 7 });
    await findings.openLedger({ threadId: busy, owner: 'acme', repo: 'api', number: 9 });
    await findings.append(busy, aFinding({ status: 'open' }));
    await findings.append(busy, aFinding({ status: 'open' }));
    const dismissed = {
      kind: 'dismissed' as const,
      sha: sha('b'),
      note: 'not a problem',
      by: { kind: 'person' as const, login: 'octocat' },
      at: '2026-03-01T00:00:00.000Z',
    };
    await findings.append(busy, aFinding({ status: 'dismissed', resolution: dismissed }));
    const reviews = new ReviewedPullRequestRepository(database.db);
    const listed = await reviews.list();
    expect(listed.map((r) => [`${r.owner}/${r.repo}#${r.number}`, r.open, r.dismissed])).toEqual(
      expect.arrayContaining([
        ['acme/api#9', 2, 1],
        ['acme/web#7', 0, 0],
      ]),
    );
    expect((await reviews.list({ repository: 'acme/web' })).map((r) => r.threadId)).toEqual([
      quiet,
    ]);
  });

  it('sums runs, model usage and cost per day, repository and person, with durations and failures', async () => {
    const ops = new OpsRepository(database.db);
    const window = { since: at('2026-04-01T00:00:00Z'), until: at('2026-04-03T00:00:00Z') };
    const [agent, other] = [randomUUID(), randomUUID()];
    const base = { repository: 'acme/web', person: 'github:octocat', threadId: agent };
    await seedRun(database.db, {
      ...base,
      createdAt: at('2026-04-01T10:00:00Z'),
      startedAt: at('2026-04-01T10:00:00Z'),
      finishedAt: at('2026-04-01T10:01:40Z'),
      status: 'completed',
      exitStatus: 'submitted',
      calls: [
        { inputTokens: 1000, outputTokens: 200, costUsd: 0.25 },
        { inputTokens: 500, outputTokens: 100, costUsd: 0.5 },
      ],
    });
    await seedRun(database.db, {
      ...base,
      requestedBy: CI_FIX_REQUESTER,
      createdAt: at('2026-04-02T09:00:00Z'),
      startedAt: at('2026-04-02T09:00:00Z'),
      finishedAt: at('2026-04-02T09:00:20Z'),
      status: 'failed',
      exitStatus: 'exit_cost',
      summary: 'The run hit its cost limit.',
      calls: [{ inputTokens: 10, outputTokens: 5, costUsd: 1 }],
    });
    await seedRun(database.db, {
      repository: 'acme/api',
      person: 'github:hubot',
      threadId: other,
      createdAt: at('2026-04-02T11:00:00Z'),
      calls: [{ inputTokens: 7, outputTokens: 3 }],
    });
    await seedRun(database.db, { ...base, createdAt: at('2026-04-05T00:00:00Z') });

    expect(await ops.buckets(window)).toEqual([
      expect.objectContaining({
        day: '2026-04-01',
        repository: 'acme/web',
        person: 'github:octocat',
        runs: 1,
        ended: 1,
        failed: 0,
        modelCalls: 2,
        inputTokens: 1500,
        outputTokens: 300,
        costUsd: 0.75,
      }),
      expect.objectContaining({ day: '2026-04-02', repository: 'acme/api', runs: 1, costUsd: 0 }),
      expect.objectContaining({
        day: '2026-04-02',
        repository: 'acme/web',
        failed: 1,
        ciFixes: 1,
        ciFixCostUsd: 1,
        costUsd: 1,
      }),
    ]);
    const durations = await ops.durations(window);
    expect(durations.find((d) => d.day === null)).toMatchObject({ runs: 2, p50Seconds: 60 });
    expect(durations.find((d) => d.day === '2026-04-01')).toMatchObject({ p99Seconds: 100 });
    expect(await ops.statuses(window)).toEqual(
      expect.arrayContaining([
        { status: 'completed', exitStatus: 'submitted', runs: 1 },
        { status: 'failed', exitStatus: 'exit_cost', runs: 1 },
        { status: 'queued', exitStatus: null, runs: 1 },
      ]),
    );
    expect(await ops.failures(window)).toEqual([
      { exitStatus: 'exit_cost', runs: 1, latestSummary: 'The run hit its cost limit.' },
    ]);
  });

  it("counts agent pull requests opened and merged, and the merged ones' cost", async () => {
    const ops = new OpsRepository(database.db);
    const watches = new CiWatchRepository(database.db);
    const threads = [randomUUID(), randomUUID()];
    for (const [index, threadId] of threads.entries()) {
      await seedRun(database.db, {
        repository: 'acme/mobile',
        person: 'github:octocat',
        threadId,
        createdAt: at('2026-05-01T08:00:00Z'),
        calls: [{ inputTokens: 1, outputTokens: 1, costUsd: 2 + index }],
      });
      await new ThreadPlanRepository(database.db).claimOwner(threadId, 'github:octocat');
      const watch = await watches.start({
        id: randomUUID(),
        owner: 'acme',
        repo: 'mobile',
        number: 40 + index,
        url: `https://github.com/acme/mobile/pull/${40 + index}`,
        threadId,
        asked: false,
        at: at('2026-05-01T09:00:00Z'),
      });
      const reason = index === 0 ? MERGED_STOP_REASON : 'pull_request_closed';
      await watches.stop(watch.id, reason, at('2026-05-02T09:00:00Z'));
    }
    const window = { since: at('2026-05-01T00:00:00Z'), until: at('2026-05-03T00:00:00Z') };
    expect(await ops.pullRequests(window)).toEqual([
      {
        repository: 'acme/mobile',
        person: 'github:octocat',
        opened: 2,
        merged: 1,
        mergedCostUsd: 2,
      },
    ]);
    const later = { since: at('2026-05-02T00:00:00Z'), until: at('2026-05-03T00:00:00Z') };
    expect(await ops.pullRequests(later)).toEqual([
      expect.objectContaining({ opened: 0, merged: 1 }),
    ]);
  });

  it("sums the reviewer's cost and Caravel's findings a commit fixed, per repository", async () => {
    const ops = new OpsRepository(database.db);
    const findings = new FindingRepository(database.db);
    const review = randomUUID();
    await findings.openLedger({ threadId: review, owner: 'acme', repo: 'reviews', number: 3 });
    await seedRun(database.db, {
      repository: 'acme/reviews',
      person: 'github:octocat',
      threadId: review,
      createdAt: at('2026-06-01T08:00:00Z'),
      calls: [
        { inputTokens: 1, outputTokens: 1, costUsd: 0.25 },
        { inputTokens: 1, outputTokens: 1, costUsd: 0.5 },
      ],
    });
    const inWindow = '2026-06-01T09:00:00.000Z';
    const by = { kind: 'person' as const, login: 'octocat' };
    const fixed = {
      kind: 'fixed_by_commit' as const,
      sha: sha('c'),
      note: 'fixed',
      by,
      at: '2026-06-02T09:00:00.000Z',
    };
    const dismissed = { ...fixed, kind: 'dismissed' as const, note: 'not a problem' };
    for (const finding of [
      aFinding({ createdAt: inWindow, status: 'resolved', resolution: fixed }),
      aFinding({ createdAt: inWindow, status: 'dismissed', resolution: dismissed }),
      aFinding({ createdAt: inWindow }),
      // A person's finding on the same pull request is not the reviewer's to count.
      aFinding({ createdAt: inWindow, author: by, status: 'resolved', resolution: fixed }),
    ])
      await findings.append(review, finding);

    const window = { since: at('2026-06-01T00:00:00Z'), until: at('2026-06-03T00:00:00Z') };
    expect(await ops.reviews(window)).toEqual([
      { repository: 'acme/reviews', reviewCostUsd: 0.75, findingsRaised: 3, findingsAccepted: 1 },
    ]);
    const before = { since: at('2026-05-01T00:00:00Z'), until: at('2026-06-01T00:00:00Z') };
    expect(await ops.reviews(before)).toEqual([]);
  });

  it("lists everyone's standing instructions, newest first, and forgets one", async () => {
    const instructions = new UserInstructionsRepository(database.db);
    await instructions.save('github:octocat', 'Use pnpm.', at('2026-06-01T00:00:00Z'));
    await instructions.save('slack:U123', 'Answer in French.', at('2026-06-02T00:00:00Z'));
    expect((await instructions.list()).map((row) => row.subject)).toEqual([
      'slack:U123',
      'github:octocat',
    ]);
    expect(await instructions.remove('github:octocat')).toBe(true);
    expect(await instructions.remove('github:octocat')).toBe(false);
    expect(await instructions.find('github:octocat')).toBeNull();
  });
});
