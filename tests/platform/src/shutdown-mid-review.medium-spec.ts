import { githubReviewThreadId, ReviewRequestedV1 } from '@caravel/contracts';
import { FindingRepository } from '@caravel/db';
import { createGitRepo, type GitRepo } from '@caravel/findings/testing';
import type { ServiceHost } from '@caravel/platform';
import { FakeGitHub, startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  describeEachPair,
  pairOf,
  pairStorage,
  type PairStorage,
  type PlatformPair,
} from './harness/platform-pairs.js';
import { until } from './harness/scenario-run.js';

// A platform stopped while a review waits on its model (a rolling deploy of the reviewer): its
// close() does not wait for the review, nothing is published, and the next platform on the same
// storage reviews the pull request once.

const BOT = 'caravel[bot]';
const REPO = 'acme/widgets';
const KEY = `${REPO}#7`;
const threadId = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 7 });
/** Longer than the test: the first model call is answered only by the stop's abort. */
const NEVER_MS = 600_000;

await describeEachPair('a platform stopped mid-review', (kind) => {
  let storage: PairStorage;
  let fake: FakeGitHub;
  let origin: GitRepo;
  let llm: FakeLlmServer;
  const hosts: ServiceHost[] = [];

  beforeAll(async () => {
    fake = new FakeGitHub().addUserToken('ghu_caravel', BOT).addRepository(REPO);
    await fake.start();
    fake.setReviewablePull(REPO, 7, {
      author: 'alice',
      commentable: { 'src/app.ts': { RIGHT: [1, 2, 3], LEFT: [1, 2, 3] } },
    });
    origin = createGitRepo();
    origin.commit('base', { 'src/app.ts': 'const a = 1;\n' });
    origin.git('checkout', '--quiet', '-b', 'feature');
    llm = await startFakeOpenAi();
    storage = await pairStorage(kind, {
      SANDBOX_PROVIDER: 'local',
      REVIEWER_MODEL: 'openai-compatible:reviewer',
      OPENAI_COMPATIBLE_BASE_URL: llm.baseUrl,
      REVIEWER_GITHUB_LOGIN: BOT,
      GITHUB_API_URL: fake.origin,
      GITHUB_TOKEN: 'ghu_caravel',
    });
  }, 60_000);

  afterAll(async () => {
    for (const host of hosts.splice(0)) await host.close().catch(() => undefined);
    await storage?.dispose();
    await fake?.close();
    await llm?.close();
    origin?.remove();
  }, 120_000);

  async function startHost(): Promise<PlatformPair> {
    const host = await storage.start();
    hosts.push(host);
    return pairOf(kind, host, async () => {
      hosts.splice(hosts.indexOf(host), 1);
      await host.close();
    });
  }

  it('closes without waiting for the review, and the next platform reviews once', async () => {
    const head = origin.commit('a defect', { 'src/app.ts': 'const a = user.name;\n' });
    llm.enqueue(
      // The first platform's model call: never answered before its stop.
      { text: 'Too late.', delayMs: NEVER_MS },
      // The next platform's review.
      {
        toolCalls: [
          {
            name: 'add_finding',
            args: {
              severity: 'high',
              confidence: 'high',
              category: 'correctness',
              title: 'user may be undefined',
              file: 'src/app.ts',
              start_line: 1,
              description: 'user may be undefined here: a TypeError.',
            },
          },
        ],
      },
      { toolCalls: [{ name: 'publish_review', args: {} }] },
      { text: 'Done.' },
    );
    const first = await startHost();
    await first.bus.publish(
      ReviewRequestedV1,
      ReviewRequestedV1.create(
        {
          threadId,
          pullRequestThreadId: randomUUID(),
          source: 'github',
          deliveryId: randomUUID(),
          repository: { owner: 'acme', name: 'widgets', cloneUrl: origin.root, baseBranch: 'main' },
          pullRequest: { number: 7, headSha: head, draft: false },
          author: { externalId: 'alice' },
          reason: 'opened',
        },
        { source: 'platform-scenario' },
      ),
    );
    await until(() => Promise.resolve(llm.requests.length > 0 || undefined), 'the model call');

    // Stopped while the model is asked: close() returns (before, it waited for the answer).
    await first.close();
    expect(fake.reviews.reviews.get(KEY) ?? []).toEqual([]);

    // The request was handed back: the next platform reviews the head, once.
    const second = await startHost();
    const findings = new FindingRepository(second.database.db);
    await until(
      () => findings.getLedger(threadId).then((l) => (l?.lastReviewedSha === head ? l : undefined)),
      'the review on the next platform',
    );
    // Its end: the check run completed (the stopped one ended neutral, this one succeeds).
    const checks = () => fake.reviews.checkRuns.get(REPO) ?? [];
    await until(
      () => Promise.resolve(checks().find((c) => c.conclusion === 'success')),
      'the review to end',
    );
    expect(checks().map((c) => c.conclusion)).toEqual(['neutral', 'success']);
    expect(fake.reviews.reviews.get(KEY)).toHaveLength(1);
    expect((fake.reviews.comments.get(KEY) ?? []).map((c) => c.line)).toEqual([1]);
    expect(await findings.list(threadId)).toHaveLength(1);
    expect(llm.requests).toHaveLength(4);
    await second.close();
  }, 300_000);
});
