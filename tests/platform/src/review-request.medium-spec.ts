import { githubReviewThreadId } from '@caravel/contracts';
import { FindingRepository } from '@caravel/db';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { postGithubWebhook } from './harness/github-webhook.js';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import { until } from './harness/scenario-run.js';

// A signed `pull_request.opened` on an auto-review repository travels ingress -> bus -> reviewer
// on both pairs, and the pull request's reviewer thread gets its ledger at the opened head.
const SECRET = 'review-request-secret';
const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

function opened(number: number) {
  return {
    action: 'opened',
    number,
    pull_request: {
      id: 800_000 + number,
      number,
      draft: false,
      head: { sha: HEAD, ref: 'feature/x' },
      user: { login: 'octocat', type: 'User' },
      author_association: 'MEMBER',
    },
    repository: {
      name: 'Widgets',
      private: true,
      owner: { login: 'Acme', type: 'Organization' },
    },
    sender: { login: 'octocat', type: 'User' },
  };
}

await describeEachPair('a review request', (kind) => {
  let pair: PlatformPair;

  beforeAll(async () => {
    pair = await startPair(kind, {
      GITHUB_WEBHOOK_SECRET: SECRET,
      AUTO_REVIEW_REPOS: 'acme/widgets',
    });
  }, 120_000);

  afterAll(async () => {
    await pair?.close();
  });

  it("opens the ledger of the pull request's one reviewer thread", async () => {
    const number = 40 + Math.floor(Math.random() * 1000);
    const threadId = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number });
    const response = await postGithubWebhook(pair.host.url, SECRET, 'pull_request', opened(number));
    expect(await response.json()).toEqual({ accepted: true, threadId });

    const findings = new FindingRepository(pair.database.db);
    // The reviewer opens the ledger, then records the head in a second write: wait for both.
    const ledger = await until(
      () => findings.getLedger(threadId).then((l) => (l?.headSha ? l : undefined)),
      "the ledger at the pull request's head",
    );
    expect(ledger).toMatchObject({ owner: 'acme', repo: 'widgets', number, headSha: HEAD });
  }, 60_000);
});
