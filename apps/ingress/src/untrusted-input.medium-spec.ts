import { STREAMS, type Envelope } from '@caravel/contracts';
import { DeliveryRepository, openDatabase, type Database } from '@caravel/db';
import { markdownToAdf } from '@caravel/integrations';
import { createEmbeddedBus } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { describeEachDatabase, FakeConfluence, FakeJira, LoopbackApi } from '@caravel/testing';
import { sql } from 'kysely';
import { createHash, createHmac, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { githubPayload, linearComment, slackEvent } from './events/payload.factory.js';
import { MAX_JSON_DEPTH } from './events/untrusted-json.js';
import { IngressModule } from './ingress.module.js';
import { ingressConfigFrom } from './ingress.config.js';
import { MAX_TRIGGER_TEXT_CHARS } from './services/trigger-intake.service.js';
import { connectQsh, hs256, rs256 } from './testing/connect-signing.js';
import { flakyBus, type FlakyBus } from './testing/flaky-bus.js';
import { postWebhook, type SignedRequest, type WebhookReply } from './testing/webhook-request.js';

const NOW = new Date('2026-01-02T10:00:00Z');
const SECONDS = Math.floor(NOW.getTime() / 1000);
const BASE = 'https://caravel.example.test';
const JIRA_ACCOUNT = { email: 'svc@acme.test', token: 'svc-token' };
const CONFLUENCE_ACCOUNT = { email: 'wiki@acme.test', token: 'wiki-token' };
const COMMENT_PATH = '/connect/webhooks/comment-created';
const atlassian = generateKeyPairSync('rsa', { modulusLength: 2048 });
const secrets = { github: 'gh', slack: 'sl', linear: 'li', jira: 'ji' };
const hmac = (secret: string, data: string | Buffer) =>
  createHmac('sha256', secret).update(data).digest('hex');
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** Unstorable text: NUL, a lone high and a lone low surrogate. */
const HOSTILE = 'fix\u0000 the \uD800 parser \uDFFF now';
/** What ingress makes of it. */
const CLEANED = 'fix\uFFFD the \uFFFD parser \uFFFD now';
const deep = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
/** Stands for 10,000 nested arrays in a body: too deep for the test's own `JSON.stringify`. */
const TEN_THOUSAND_LEVELS = '<10,000 nested arrays>';

type SourceName = 'github' | 'slack' | 'linear' | 'jira' | 'confluence';

/** How a test talks as one sender: a signed mention, or any bytes signed as it signs. */
interface Sender {
  mention(text: string, extra?: Record<string, unknown>): SignedRequest;
  sign(body: Buffer): SignedRequest;
}

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

await describeEachDatabase('untrusted input from every source', openDatabase, (target) => {
  let database: Database;
  let flaky: FlakyBus;
  let host: ServiceHost;
  let keys: LoopbackApi;
  let jira: FakeJira;
  let confluence: FakeConfluence;
  const clientKey = randomUUID();
  const tenantSecret = `shared-${randomUUID()}`;

  beforeAll(async () => {
    keys = new LoopbackApi().route('GET', '/kid-1', () => ({
      status: 200,
      body: atlassian.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    }));
    jira = new FakeJira().addAccount(JIRA_ACCOUNT.email, JIRA_ACCOUNT.token);
    confluence = new FakeConfluence().addAccount(
      CONFLUENCE_ACCOUNT.email,
      CONFLUENCE_ACCOUNT.token,
    );
    await Promise.all([keys.listen(), jira.listen(), confluence.listen()]);
    database = await target.open();
    const bus = createEmbeddedBus({ database, name: 'untrusted-medium' });
    await bus.ensureStreams(Object.values(STREAMS));
    flaky = flakyBus(bus);
    const config = ingressConfigFrom({
      GITHUB_WEBHOOK_SECRET: secrets.github,
      SLACK_SIGNING_SECRET: secrets.slack,
      SLACK_BOT_USER_ID: 'UBOT',
      LINEAR_WEBHOOK_SECRET: secrets.linear,
      JIRA_SHARED_SECRET: secrets.jira,
      JIRA_BASE_URL: jira.origin,
      JIRA_EMAIL: JIRA_ACCOUNT.email,
      JIRA_API_TOKEN: JIRA_ACCOUNT.token,
      CONFLUENCE_BASE_URL: BASE,
      CONNECT_KEYS_URL: keys.origin,
      CONFLUENCE_EMAIL: CONFLUENCE_ACCOUNT.email,
      CONFLUENCE_API_TOKEN: CONFLUENCE_ACCOUNT.token,
      CONFLUENCE_BOT_ACCOUNT_ID: 'acc-bot',
      CONNECT_SECRET_KEYS: `k1:${randomBytes(32).toString('base64')}`,
    });
    host = await startServiceHost({
      runtime: composeRuntime({
        name: 'untrusted-medium',
        mode: 'embedded',
        bus: flaky.bus,
        database,
      }),
      modules: [IngressModule.register(config, { now: () => NOW })],
      port: 0,
      logLevels: ['fatal'],
    });
    const install = await post({
      path: '/connect/installed',
      headers: {
        authorization: `JWT ${rs256(
          {
            iss: clientKey,
            aud: BASE,
            iat: SECONDS - 10,
            exp: SECONDS + 170,
            qsh: connectQsh('POST', '/connect/installed'),
          },
          atlassian.privateKey,
        )}`,
      },
      body: Buffer.from(
        JSON.stringify({
          key: 'caravel',
          clientKey,
          sharedSecret: tenantSecret,
          baseUrl: confluence.wikiUrl,
          productType: 'confluence',
          eventType: 'installed',
        }),
      ),
    });
    expect(install.status).toBe(200);
  });

  afterAll(async () => {
    await host?.close();
    await Promise.all([keys?.close(), jira?.close(), confluence?.close()]);
  });

  const post = (request: SignedRequest): Promise<WebhookReply> => postWebhook(host, request);

  const json = (value: unknown) =>
    Buffer.from(
      JSON.stringify(value).replace(
        JSON.stringify(TEN_THOUSAND_LEVELS),
        `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
      ),
    );
  const unique = () => Math.floor(Math.random() * 1e9);

  const senders: Record<SourceName, Sender> = {
    github: {
      mention(text, extra = {}) {
        const payload = githubPayload.issueComment(`@caravel ${text}`);
        const n = unique();
        return this.sign(
          json({
            ...payload,
            issue: { ...payload.issue, number: n },
            comment: { ...payload.comment, id: n },
            ...extra,
          }),
        );
      },
      sign: (body) => ({
        path: '/webhooks/github',
        headers: {
          'x-github-event': 'issue_comment',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${hmac(secrets.github, body)}`,
        },
        body,
      }),
    },
    slack: {
      mention(text, extra = {}) {
        const ts = `${SECONDS}.${unique()}`;
        const event = slackEvent(
          { type: 'app_mention', text: `<@UBOT> ${text}`, ts },
          `Ev${unique()}`,
        );
        return this.sign(json({ ...event, ...extra }));
      },
      sign(body) {
        const ts = String(SECONDS);
        const basestring = Buffer.concat([Buffer.from(`v0:${ts}:`), body]);
        return {
          path: '/webhooks/slack',
          headers: {
            'x-slack-request-timestamp': ts,
            'x-slack-signature': `v0=${hmac(secrets.slack, basestring)}`,
          },
          body,
        };
      },
    },
    linear: {
      mention(text, extra = {}) {
        const payload = linearComment(`@caravel ${text}`, { webhookTimestamp: NOW.getTime() });
        return this.sign(
          json({ ...payload, data: { ...payload.data, id: `c-${unique()}` }, ...extra }),
        );
      },
      sign: (body) => ({
        path: '/webhooks/linear',
        headers: {
          'linear-signature': hmac(secrets.linear, body),
          'linear-delivery': randomUUID(),
        },
        body,
      }),
    },
    jira: {
      mention(text, extra = {}) {
        const issue = jira.addIssue({ projectKey: 'OPS', summary: 'Parser' });
        const comment = jira.addComment(issue.key, {
          body: markdownToAdf(`@Caravel ${text}`),
          author: { accountId: 'acc-eve', displayName: 'Eve' },
        });
        return this.sign(
          json({
            deliveryId: `${issue.key}-${randomUUID()}`,
            site: new URL(jira.origin).host,
            issue: { id: issue.id, key: issue.key },
            comment: { id: comment.id },
            text,
            ...extra,
          }),
        );
      },
      sign: (body) => ({
        path: '/webhooks/jira',
        headers: { 'x-caravel-secret': secrets.jira },
        body,
      }),
    },
    confluence: {
      mention(text, extra = {}) {
        const comment = confluence.addComment({
          pageId: String(unique()),
          storage: `<p><ri:user ri:account-id="acc-bot" /> ${escapeXml(text)}</p>`,
          author: { accountId: 'acc-ana', displayName: 'Ana' },
        });
        return this.sign(json({ comment: { id: comment.id }, ...extra }));
      },
      sign: (body) => ({
        path: COMMENT_PATH,
        headers: {
          authorization: `JWT ${hs256(
            {
              iss: clientKey,
              iat: SECONDS - 5,
              exp: SECONDS + 175,
              qsh: connectQsh('POST', COMMENT_PATH),
            },
            tenantSecret,
          )}`,
        },
        body,
      }),
    },
  };

  async function triggers(threadId?: string): Promise<Envelope[]> {
    const found: Envelope[] = [];
    const options = threadId ? { threadId } : {};
    for await (const message of flaky.bus.replay(STREAMS.TRIGGERS, options))
      found.push(message.envelope);
    return found;
  }

  /** How many triggers were published and deliveries stored, in all. */
  async function totals(): Promise<{ triggers: number; deliveries: number }> {
    const row = await database.db
      .selectFrom('deliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    return { triggers: (await triggers()).length, deliveries: Number(row.n) };
  }

  const deliveryOf = (threadId: string) =>
    database.db
      .selectFrom('deliveries')
      .selectAll()
      .where('thread_id', '=', threadId)
      .executeTakeFirstOrThrow();
  /** The delivery once settled: the request is answered before its settle is done. */
  const settledDeliveryOf = async (threadId: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const stored = await deliveryOf(threadId);
      if (stored.settled_at !== null || Date.now() > deadline) return stored;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  describe.each(Object.keys(senders) as SourceName[])('%s', (source) => {
    const sender = () => senders[source];

    it('takes a mention holding NUL and lone surrogates: stored and published with U+FFFD, raw hash kept', async () => {
      const request = sender().mention(HOSTILE);
      const answer = await post(request);
      expect(answer).toMatchObject({ status: 200, body: { accepted: true } });
      const threadId = answer.body['threadId'] as string;

      const [trigger, ...more] = await triggers(threadId);
      expect(more).toHaveLength(0);
      const published = JSON.stringify(trigger);
      expect(published).not.toMatch(/\\u0000|\\ud[89a-f][0-9a-f]{2}/i);
      expect((trigger?.data as { text: string }).text).toContain(CLEANED);
      // What dispatch and the runner store from it, PostgreSQL takes.
      await sql`select ${published}::jsonb`.execute(database.db);

      const stored = await settledDeliveryOf(threadId);
      expect(stored.payload_sha256).toBe(sha256(request.body));
      expect(stored.settled_at).toBeInstanceOf(Date);
      expect(JSON.stringify(stored.payload)).not.toMatch(/\\u0000|\\ud[89a-f][0-9a-f]{2}/i);

      expect(await post(request)).toMatchObject({ status: 200, body: { reason: 'duplicate' } });
      expect(await triggers(threadId)).toHaveLength(1);
    });

    it('refuses a body nested 10,000 levels deep with a 400, recording and publishing nothing', async () => {
      const before = await totals();
      const answer = await post(sender().mention('go', { extra: TEN_THOUSAND_LEVELS }));
      expect(answer).toMatchObject({
        status: 400,
        body: {
          error: {
            code: 'MESSAGE_MALFORMED',
            message: expect.stringContaining(`deeper than ${MAX_JSON_DEPTH} levels`) as unknown,
          },
        },
      });
      expect(await totals()).toEqual(before);
    });

    it('refuses a text longer than a trigger may carry with a 400, recording and publishing nothing', async () => {
      const before = await totals();
      const answer = await post(sender().mention('x'.repeat(MAX_TRIGGER_TEXT_CHARS + 1)));
      expect(answer).toMatchObject({ status: 400, body: { error: { code: 'MESSAGE_MALFORMED' } } });
      expect(await totals()).toEqual(before);
    });

    it('answers 503 with Retry-After when the publish fails, keeping nothing; the retry publishes once', async () => {
      const request = sender().mention('retry me');
      const before = await totals();
      flaky.failNextPublishes(1);
      const failed = await post(request);
      expect(failed).toMatchObject({
        status: 503,
        retryAfter: '30',
        body: { error: { code: 'DEPENDENCY_UNAVAILABLE' } },
      });
      expect(await totals()).toEqual(before);

      const retried = await post(request);
      expect(retried).toMatchObject({ status: 200, body: { accepted: true } });
      expect(await totals()).toEqual({
        triggers: before.triggers + 1,
        deliveries: before.deliveries + 1,
      });
    });

    it.each([
      ['empty', Buffer.alloc(0)],
      ['null', Buffer.from('null')],
      ['an array', Buffer.from('[]')],
      ['a string', Buffer.from('"text"')],
      ['an empty object', Buffer.from('{}')],
      ['cut short', Buffer.from('{"action":')],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['a raw NUL byte', Buffer.from('{"a":"\u0000"}')],
      ['a __proto__ key', Buffer.from('{"__proto__":{"polluted":true}}')],
      [`${MAX_JSON_DEPTH + 1} levels`, json(deep(MAX_JSON_DEPTH + 1))],
    ])('answers a signed body that is %s with a coded 4xx or 2xx, never a 5xx', async (_, body) => {
      const before = await totals();
      const answer = await post(sender().sign(body));
      expect(answer.status).toBeGreaterThanOrEqual(200);
      expect(answer.status).toBeLessThan(500);
      if (answer.status >= 300) {
        expect(answer.body).toEqual({
          error: { code: expect.any(String) as unknown, message: expect.any(String) as unknown },
        });
      }
      expect(answer.text).not.toMatch(/\bat \S+ \(|\.ts:\d+/);
      expect(await totals()).toEqual(before);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    });
  });

  describe('a request lost between its steps', () => {
    it('takes over the claim a crashed first attempt left, and publishes once', async () => {
      const request = senders.github.mention('after a crash');
      const sent = JSON.parse(request.body.toString()) as { comment: { id: number } };
      // The first attempt claimed the delivery, then its process died before it published.
      const claim = await new DeliveryRepository(database.db).claim({
        id: randomUUID(),
        source: 'github',
        deliveryId: request.headers['x-github-delivery'] ?? '',
        semanticKey: `issue_comment:${sent.comment.id}`,
        threadId: randomUUID(),
        event: 'issue_comment.created',
        payload: {},
      });
      expect(claim).toEqual({ outcome: 'claimed' });

      const retried = await post(request);
      expect(retried).toMatchObject({ status: 200, body: { accepted: true } });
      expect(await triggers(retried.body['threadId'] as string)).toHaveLength(1);
      expect(await post(request)).toMatchObject({ status: 200, body: { reason: 'duplicate' } });
    });

    it('settles a delivery whose settle was lost after its publish: the repeat is a duplicate', async () => {
      const request = senders.github.mention('settle lost');
      const first = await post(request);
      expect(first).toMatchObject({ status: 200, body: { accepted: true } });
      const threadId = first.body['threadId'] as string;
      expect((await settledDeliveryOf(threadId)).settled_at).toBeInstanceOf(Date);
      await database.db
        .updateTable('deliveries')
        .set({ settled_at: null })
        .where('thread_id', '=', threadId)
        .execute();

      expect(await post(request)).toMatchObject({ status: 200, body: { reason: 'duplicate' } });
      expect(await triggers(threadId)).toHaveLength(1);
      expect((await settledDeliveryOf(threadId)).settled_at).toBeInstanceOf(Date);
    });

    it('answers a body over the 25 MB cap with a coded 413 before reading the rest', async () => {
      const before = await totals();
      const answer = await post(senders.github.sign(Buffer.alloc(25 * 1024 * 1024 + 1, 0x20)));
      expect(answer).toMatchObject({ status: 413, body: { error: { code: 'BAD_REQUEST' } } });
      expect(await totals()).toEqual(before);
    });
  });
});
