import { githubReviewThreadId } from '@caravel/contracts';
import {
  CI_FIX_REQUESTER,
  CiWatchRepository,
  FindingRepository,
  MERGED_STOP_REASON,
  ThreadPlanRepository,
  type Database,
} from '@caravel/db';
import { seedRun } from '@caravel/db/testing';
import { aFinding, sha } from '@caravel/findings/testing';
import { randomUUID } from 'node:crypto';

export const REVIEWED_PR = { owner: 'acme', repo: 'web', number: 7 };
const at = (iso: string) => new Date(iso);

/**
 * A reviewed pull request's ledger (Caravel's finding and another bot's, the reviewer's publish
 * with its verdict) and an agent thread's two runs on 2026-04-01 ($1.50, and a $0.50 CI fix)
 * whose pull request merged the next day.
 */
export async function seedReviewsAndCost(database: Database): Promise<void> {
  const reviewThread = githubReviewThreadId(REVIEWED_PR);
  const findings = new FindingRepository(database.db);
  await findings.openLedger({ threadId: reviewThread, ...REVIEWED_PR });
  await findings.append(
    reviewThread,
    aFinding({ title: 'slugify drops a trailing dash', file: 'src/slugify.ts', severity: 'high' }),
  );
  const copilot = {
    kind: 'bot' as const,
    login: 'copilot-pull-request-reviewer[bot]',
    bot: 'copilot',
  };
  await findings.append(
    reviewThread,
    aFinding({
      author: copilot,
      title: 'Unused import of lodash',
      reports: [
        {
          author: copilot,
          commentId: '901',
          reviewId: null,
          threadId: null,
          url: 'https://github.com/acme/web/pull/7#discussion_r901',
          sha: sha('a'),
          at: '2026-04-01T10:00:00.000Z',
        },
      ],
    }),
  );
  // The reviewer's publish keeps its verdict on the ledger.
  await findings.moveLedger(
    reviewThread,
    {
      lastReviewedSha: sha('a'),
      verdict: {
        event: 'REQUEST_CHANGES',
        reason: 'changes_requested',
        reviewId: '77',
        sha: sha('a'),
      },
    },
    at('2026-04-01T10:05:00Z'),
  );

  const agentThread = randomUUID();
  const run = {
    threadId: agentThread,
    repository: 'acme/web',
    person: 'github:octocat',
    status: 'completed' as const,
    exitStatus: 'submitted',
  };
  await seedRun(database.db, {
    ...run,
    createdAt: at('2026-04-01T09:00:00Z'),
    startedAt: at('2026-04-01T09:00:00Z'),
    finishedAt: at('2026-04-01T09:02:00Z'),
    calls: [{ inputTokens: 12_000, outputTokens: 800, costUsd: 1.5 }],
  });
  await seedRun(database.db, {
    ...run,
    requestedBy: CI_FIX_REQUESTER,
    createdAt: at('2026-04-01T15:00:00Z'),
    startedAt: at('2026-04-01T15:00:00Z'),
    finishedAt: at('2026-04-01T15:01:00Z'),
    calls: [{ inputTokens: 3_000, outputTokens: 200, costUsd: 0.5 }],
  });
  await new ThreadPlanRepository(database.db).claimOwner(agentThread, 'github:octocat');
  const watches = new CiWatchRepository(database.db);
  const watch = await watches.start({
    id: randomUUID(),
    owner: 'acme',
    repo: 'web',
    number: 12,
    url: 'https://github.com/acme/web/pull/12',
    threadId: agentThread,
    asked: false,
    at: at('2026-04-01T09:02:00Z'),
  });
  await watches.stop(watch.id, MERGED_STOP_REASON, at('2026-04-02T08:00:00Z'));
}
