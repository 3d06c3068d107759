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
import { IntegrationAdapters, integrationsConfigOf } from '@caravel/integrations';
import { createEmbeddedBus, type Bus, type Subscription } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { describeEachDatabase, FakeGitHub } from '@caravel/testing';
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { githubPayload } from './events/payload.factory.js';
import { IngressModule } from './ingress.module.js';
import { ingressConfigFrom } from './ingress.config.js';
import { serveGithubLookups } from './testing/github-lookup-responder.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
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
  'GitHub repository policy, the public-repository gate, review requests and head moves',
  openDatabase,
  (target) => {
    let database: Database;
    let bus: Bus;
    let host: ServiceHost;
    let github: FakeGitHub;
    let lookups: Subscription | undefined;
    let app: IntegrationAdapters;

    beforeAll(async () => {
      github = new FakeGitHub({ app: { id: '31', publicKey } })
        .addRepository('acme/widgets')
        .addOrgMember('acme', 'alice');
      const apiUrl = await github.start();
      database = await target.open();
      bus = createEmbeddedBus({ database, name: 'ingress-policy' });
      await bus.ensureStreams(Object.values(STREAMS));
      // The ingress holds no App: dispatch asks GitHub for it (here, the same answering).
      app = new IntegrationAdapters(
        integrationsConfigOf({
          GITHUB_API_URL: apiUrl,
          GITHUB_APP_ID: '31',
          GITHUB_APP_PRIVATE_KEY: PEM,
        }),
      );
      lookups = await serveGithubLookups(bus, app);
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
      await lookups?.drain();
      await github?.close();
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

    it('refuses a stranger on a public repository after asking GitHub, and publishes nothing', async () => {
      const before = (await published(prThread)).length;
      const answer = await deliver('issue_comment', commentBy('mallory', 'NONE'));
      expect(answer).toEqual({
        status: 200,
        body: {
          accepted: false,
          reason: 'on public repository acme/widgets, @mallory is not a member of acme',
        },
      });
      expect(await published(prThread)).toHaveLength(before);
      expect(github.calls.some((call) => call.path === '/orgs/acme/members/mallory')).toBe(true);
    });

    it('admits an organization member GitHub vouches for, and a MEMBER without asking', async () => {
      const asked = () => github.calls.filter((call) => call.path.startsWith('/orgs/')).length;
      const alice = await deliver('issue_comment', commentBy('alice', 'CONTRIBUTOR'));
      expect(alice.body).toMatchObject({ accepted: true, threadId: prThread });
      const before = asked();
      const member = await deliver('issue_comment', commentBy('bob', 'MEMBER'));
      expect(member.body).toMatchObject({ accepted: true });
      expect(asked()).toBe(before);
      const texts = (await published(prThread))
        .filter((envelope) => envelope.type === TriggerReceivedV1.type)
        .map((envelope) => (envelope.data as { author: { externalId: string } }).author.externalId);
      expect(texts).toEqual(expect.arrayContaining(['alice', 'bob']));
      expect(texts).not.toContain('mallory');
    });

    it('fails closed, 503 and nothing published, while dispatch does not answer the gate', async () => {
      await lookups?.drain();
      lookups = undefined;
      const before = (await published(prThread)).length;
      const answer = await deliver('issue_comment', commentBy('carol', 'CONTRIBUTOR'));
      expect(answer.status).toBe(503);
      expect(answer.body).toMatchObject({ error: { code: 'DEPENDENCY_UNAVAILABLE' } });
      expect(await published(prThread)).toHaveLength(before);
      lookups = await serveGithubLookups(bus, app);
      const retried = await deliver('issue_comment', commentBy('carol', 'CONTRIBUTOR'));
      expect(retried.body).toMatchObject({
        accepted: false,
        reason: expect.stringMatching(/carol is not a member/) as unknown,
      });
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
