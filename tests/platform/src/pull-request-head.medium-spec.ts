import { githubThreadId } from '@caravel/contracts';
import { PullRequestHeadRepository, ThreadRepository } from '@caravel/db';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { postGithubWebhook } from './harness/github-webhook.js';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import { until } from './harness/scenario-run.js';

// A signed `pull_request.synchronize` travels ingress -> bus -> dispatch on both pairs, and the
// pull request's thread learns its new head, and the push is kept for the pull request (what a
// check report on the older head, handled after it, is weighed against).
const SECRET = 'pr-head-secret';
const OLD_HEAD = 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e';
const NEW_HEAD = '34c5c7793cb3b279e22454cb6750c80560547b3a';

function synchronize(number: number) {
  return {
    action: 'synchronize',
    number,
    before: OLD_HEAD,
    after: NEW_HEAD,
    pull_request: {
      id: 900_000 + number,
      number,
      draft: false,
      head: { sha: NEW_HEAD, ref: 'caravel/fix' },
      user: { login: 'octocat', type: 'User' },
      author_association: 'MEMBER',
    },
    repository: {
      name: 'widgets',
      private: true,
      owner: { login: 'acme', type: 'Organization' },
    },
    sender: { login: 'octocat', type: 'User' },
  };
}

await describeEachPair("a pull request's new head", (kind) => {
  let pair: PlatformPair;

  beforeAll(async () => {
    pair = await startPair(kind, { GITHUB_WEBHOOK_SECRET: SECRET });
  }, 120_000);

  afterAll(async () => {
    await pair?.close();
  });

  it('reaches the thread through ingress and dispatch', async () => {
    const number = 40 + Math.floor(Math.random() * 1000);
    const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number });
    const threads = new ThreadRepository(pair.database.db);
    await threads.upsert({ id: threadId, source: 'github' });
    await threads.setHead(threadId, OLD_HEAD);

    const response = await postGithubWebhook(
      pair.host.url,
      SECRET,
      'pull_request',
      synchronize(number),
    );
    expect(await response.json()).toEqual({ accepted: true, threadId });

    const head = await until(async () => {
      const sha = (await threads.get(threadId))?.headSha;
      return sha === NEW_HEAD ? sha : undefined;
    }, 'the new head on the thread');
    expect(head).toBe(NEW_HEAD);
    const pushed = await new PullRequestHeadRepository(pair.database.db).since(
      { owner: 'acme', repo: 'widgets', number },
      new Date(0),
    );
    expect(pushed).toMatchObject({ headSha: NEW_HEAD });
  }, 60_000);
});
