import {
  githubReviewThreadId,
  githubThreadId,
  PullRequestHeadMovedV1,
  ReviewRequestedV1,
  STREAMS,
  TriggerReceivedV1,
  type Envelope,
} from '@caravel/contracts';
import { openDatabase, ThreadRepository, type Database } from '@caravel/db';
import { createEmbeddedBus, type Bus } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { describeEachDatabase } from '@caravel/testing';
import { createHmac, randomUUID } from 'node:crypto';
import { githubPayload } from './events/payload.factory.js';
import { IngressModule } from './ingress.module.js';
import { ingressConfigFrom } from './ingress.config.js';

const SECRET = 'gh-policy-secret';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** A comment on acme/widgets#42 (public, organization-owned) by `login` with `association`. */
function commentBy(login: string, association: string, text = '@caravel fix the parser') {
  const payload = githubPayload.issueComment(text, { pr: true, login });
  payload.comment.id = Number.parseInt(randomUUID().slice(0, 6), 16);
  payload.comment.author_association = association;
  return payload;
}

await describeEachDatabase(
  'GitHub repository policy, the public-repository gate facts, review requests and head moves',
  openDatabase,
  (target) => {
    let database: Database;
    let bus: Bus;
    let host: ServiceHost;

    beforeAll(async () => {
      database = await target.open();
      // Nothing answers on the bus (no dispatch): the ingress must need nobody to publish.
      bus = createEmbeddedBus({ database, name: 'ingress-policy' });
      await bus.ensureStreams(Object.values(STREAMS));
      const config = ingressConfigFrom({
        GITHUB_WEBHOOK_SECRET: SECRET,
        ALLOWED_GITHUB_ORGS: 'acme',
        AUTO_REVIEW_REPOS: 'acme/widgets',
      });
      const runtime = composeRuntime({ name: 'ingress-policy', mode: 'embedded', bus, database });
      host = await startServiceHost({
        runtime,
        modules: [IngressModule.register(config)],
        port: 0,
        logLevels: ['fatal'],
      });
    });

    afterAll(async () => {
      await host?.close();
    });

    async function deliver(event: string, payload: unknown): Promise<Answer> {
      const body = JSON.stringify(payload);
      const response = await fetch(`${host.url}/webhooks/github`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
        body,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    async function published(threadId: string): Promise<Envelope[]> {
      const found: Envelope[] = [];
      for await (const message of bus.replay(STREAMS.TRIGGERS, { threadId })) {
        found.push(message.envelope);
      }
      return found;
    }

    const prThread = githubThreadId({ owner: 'acme', repo: 'widgets', number: 42 });

    /** The trigger data published for `threadId`, in order. */
    async function triggers(threadId: string) {
      return (await published(threadId))
        .filter((envelope) => envelope.type === TriggerReceivedV1.type)
        .map((envelope) => TriggerReceivedV1.parse(envelope).data);
    }

    it("publishes a public repository's non-member mention with the gate's facts while no dispatch answers", async () => {
      const answer = await deliver('issue_comment', commentBy('mallory', 'NONE'));

      expect(answer).toEqual({ status: 200, body: { accepted: true, threadId: prThread } });
      const mallory = (await triggers(prThread)).find((t) => t.author.externalId === 'mallory');
      expect(mallory?.githubActor).toEqual({
        login: 'mallory',
        userType: 'User',
        association: 'NONE',
        repository: { owner: 'acme', name: 'widgets', private: false, ownerIsOrganization: true },
      });
    });

    it("publishes a member's mention the same way: who may act is dispatch's decision", async () => {
      const answer = await deliver('issue_comment', commentBy('bob', 'MEMBER'));

      expect(answer.body).toMatchObject({ accepted: true, threadId: prThread });
      const bob = (await triggers(prThread)).find((t) => t.author.externalId === 'bob');
      expect(bob?.githubActor).toMatchObject({ login: 'bob', association: 'MEMBER' });
    });

    it('ignores a repository outside ALLOWED_GITHUB_ORGS before anything else', async () => {
      const payload = commentBy('bob', 'MEMBER');
      payload.repository = {
        ...payload.repository,
        name: 'x',
        owner: { ...payload.repository.owner, login: 'elsewhere' },
      };
      const answer = await deliver('issue_comment', payload);
      expect(answer.body).toMatchObject({
        accepted: false,
        reason: expect.stringMatching(/ALLOWED_GITHUB/) as unknown,
      });
    });

    it('publishes one review request on the reviewer thread for an opened pull request', async () => {
      const opened = githubPayload.pullRequest('opened');
      const reviewThread = githubReviewThreadId({ owner: 'acme', repo: 'widgets', number: 7 });
      const first = await deliver('pull_request', opened);
      const second = await deliver('pull_request', opened);
      expect(first.body).toEqual({ accepted: true, threadId: reviewThread });
      expect(second.body).toMatchObject({ accepted: false, reason: 'duplicate' });
      const requests = (await published(reviewThread)).filter(
        (envelope) => envelope.type === ReviewRequestedV1.type,
      );
      expect(requests).toHaveLength(1);
      expect(ReviewRequestedV1.parse(requests[0]).data).toMatchObject({
        pullRequestThreadId: githubThreadId({ owner: 'acme', repo: 'widgets', number: 7 }),
        pullRequest: { number: 7, draft: false },
        author: { externalId: 'octocat' },
        reason: 'opened',
        githubActor: { login: 'octocat', repository: { owner: 'acme', name: 'widgets' } },
      });
    });

    it('tells a known thread its new head and only records a head move of an unknown one', async () => {
      const unknown = githubPayload.pullRequest('synchronize');
      unknown.pull_request.number = 8;
      unknown.pull_request.id = 556;
      const recorded = await deliver('pull_request', unknown);
      expect(recorded).toMatchObject({ status: 202, body: { reason: 'recorded' } });
      const unknownThread = githubThreadId({ owner: 'acme', repo: 'widgets', number: 8 });
      expect(await published(unknownThread)).toHaveLength(0);

      const known = githubThreadId({ owner: 'acme', repo: 'widgets', number: 7 });
      await new ThreadRepository(database.db).upsert({ id: known, source: 'github' });
      const moved = await deliver('pull_request', githubPayload.pullRequest('synchronize'));
      expect(moved.body).toEqual({ accepted: true, threadId: known });
      const heads = (await published(known)).filter(
        (envelope) => envelope.type === PullRequestHeadMovedV1.type,
      );
      expect(heads.map((envelope) => PullRequestHeadMovedV1.parse(envelope).data)).toEqual([
        expect.objectContaining({
          pullRequest: 7,
          headSha: '34c5c7793cb3b279e22454cb6750c80560547b3a',
          previousSha: 'f95f852bd8fca8fcc58a9a2d6c842781e32a215e',
        }),
      ]);
    });
  },
);
