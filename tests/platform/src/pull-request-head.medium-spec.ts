import { CiCheckReportedV1, githubThreadId } from '@caravel/contracts';
import { CiWatchRepository, PullRequestHeadRepository, ThreadRepository } from '@caravel/db';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { checkRun, postGithubWebhook } from './harness/github-webhook.js';
import { describeEachPair, startPair, type PlatformPair } from './harness/platform-pairs.js';
import { until } from './harness/scenario-run.js';

// A signed `pull_request.synchronize` travels ingress -> bus -> dispatch on both pairs, and the
// pull request's thread learns its new head, and the push is kept for the pull request (what a
// check report on the older head, handled after it, is weighed against: GitHub cancels the older
// commit's runs when the next push comes, and that cancellation, sent before the push but handled
// after it, must not stop the watch of the pull request's CI).
const SECRET = 'pr-head-secret';
const OLD_HEAD = 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e';
const NEW_HEAD = '34c5c7793cb3b279e22454cb6750c80560547b3a';

const REPOSITORY = { owner: 'acme', name: 'widgets' };

function pullRequestUrl(number: number): string {
  return `https://github.com/acme/widgets/pull/${number}`;
}

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

  it('leaves the CI watch alone when a report on the older head is handled after the push', async () => {
    const number = 2_000 + Math.floor(Math.random() * 1000);
    const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number });
    const threads = new ThreadRepository(pair.database.db);
    const watches = new CiWatchRepository(pair.database.db);
    await threads.upsert({ id: threadId, source: 'github' });
    await threads.setHead(threadId, OLD_HEAD);
    const watch = await watches.start({
      id: randomUUID(),
      owner: 'acme',
      repo: 'widgets',
      number,
      url: pullRequestUrl(number),
      threadId,
      asked: true,
      agentHead: OLD_HEAD.slice(0, 12),
    });

    const pushSent = new Date();
    await postGithubWebhook(pair.host.url, SECRET, 'pull_request', synchronize(number));
    const pushes = new PullRequestHeadRepository(pair.database.db);
    const pushed = await until(
      async () =>
        (await pushes.since({ owner: 'acme', repo: 'widgets', number }, new Date(0))) ?? undefined,
      'the push kept for the pull request',
    );
    expect(pushed.headSha).toBe(NEW_HEAD);
    // The older head's lint, cancelled by GitHub as the push came: received before the push (as
    // when dispatch runs behind), handled after it on the check consumer.
    await pair.bus.publish(
      CiCheckReportedV1,
      CiCheckReportedV1.create(
        {
          threadId,
          source: 'github',
          deliveryId: `stale-${number}`,
          event: 'check_run',
          repository: REPOSITORY,
          headSha: OLD_HEAD,
          pullRequests: [{ number, url: pullRequestUrl(number) }],
          check: { kind: 'check_run', name: 'lint', status: 'completed', conclusion: 'cancelled' },
        },
        { source: 'scenario', occurredAt: new Date(pushSent.getTime() - 1_000) },
      ),
    );
    // The new head's lint passes; the check consumer is ordered, so once this one is evaluated
    // the stale one was handled before it.
    const answer = await postGithubWebhook(
      pair.host.url,
      SECRET,
      'check_run',
      checkRun(
        { number, url: pullRequestUrl(number) },
        NEW_HEAD,
        'success',
        'https://ci.example/lint/2',
      ),
    );
    expect(await answer.json()).toMatchObject({ reason: 'recorded' });
    // Stopped by the stale report ('cancelled' needs its owner), the watch would never see it.
    const settled = await until(async () => {
      const current = await watches.get(watch.id);
      const evaluated = current?.headSha === NEW_HEAD && current.greenSince;
      return evaluated || current?.active === false ? current : undefined;
    }, 'the new head green on the watch');
    expect(settled).toMatchObject({
      active: true,
      stoppedReason: null,
      headSha: NEW_HEAD,
      fixRuns: 0,
    });
  }, 60_000);
});
