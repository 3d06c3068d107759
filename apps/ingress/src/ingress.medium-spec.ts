import { STREAMS, type Envelope } from '@caravel/contracts';
import { openDatabase, ThreadRepository, type Database } from '@caravel/db';
import { createEmbeddedBus, type Bus } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { describeEachDatabase } from '@caravel/testing';
import { createHmac, randomUUID } from 'node:crypto';
import { githubPayload, slackEvent } from './events/payload.factory.js';
import { IngressModule } from './ingress.module.js';
import { ingressConfigFrom } from './ingress.config.js';

const NOW = new Date('2026-01-02T10:00:00Z');
const config = ingressConfigFrom({
  GITHUB_WEBHOOK_SECRET: 'gh-secret',
  SLACK_SIGNING_SECRET: 'slack-secret',
  SLACK_BOT_USER_ID: 'UBOT',
  TRUSTED_AUTHORS: 'github:OctoCat,slack:U0BOSS',
});
const hmac = (secret: string, data: string) =>
  createHmac('sha256', secret).update(data).digest('hex');

interface Answer {
  status: number;
  body: Record<string, unknown>;
  text: string;
}

await describeEachDatabase('ingress webhooks over HTTP', openDatabase, (target) => {
  let database: Database;
  let bus: Bus;
  let host: ServiceHost;

  beforeAll(async () => {
    database = await target.open();
    bus = createEmbeddedBus({ database, name: 'ingress-medium' });
    await bus.ensureStreams(Object.values(STREAMS));
    const runtime = composeRuntime({ name: 'ingress-medium', mode: 'embedded', bus, database });
    host = await startServiceHost({
      runtime,
      modules: [IngressModule.register(config, { now: () => NOW })],
      port: 0,
      logLevels: ['fatal'],
    });
  });

  afterAll(async () => {
    await host?.close();
  });

  async function post(path: string, body: string, headers: Record<string, string>) {
    const response = await fetch(`${host.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
  }

  function github(event: string, payload: unknown, delivery = randomUUID()): Promise<Answer> {
    const body = JSON.stringify(payload);
    return post('/webhooks/github', body, {
      'x-github-event': event,
      'x-github-delivery': delivery,
      'x-hub-signature-256': `sha256=${hmac('gh-secret', body)}`,
    });
  }

  function slack(payload: unknown, extra: Record<string, string> = {}): Promise<Answer> {
    const body = JSON.stringify(payload);
    const ts = String(Math.floor(NOW.getTime() / 1000));
    return post('/webhooks/slack', body, {
      'x-slack-request-timestamp': ts,
      'x-slack-signature': `v0=${hmac('slack-secret', `v0:${ts}:${body}`)}`,
      ...extra,
    });
  }

  async function triggersFor(threadId: string): Promise<Envelope[]> {
    const found: Envelope[] = [];
    for await (const message of bus.replay(STREAMS.TRIGGERS, { threadId })) {
      found.push(message.envelope);
    }
    return found;
  }

  it('publishes one trigger for a signed GitHub mention and nothing for its redelivery', async () => {
    const payload = githubPayload.issueComment('@caravel fix the parser', { pr: true });
    const delivery = randomUUID();
    const first = await github('issue_comment', payload, delivery);
    expect(first).toMatchObject({ status: 200, body: { accepted: true } });
    const threadId = first.body.threadId as string;
    const again = await github('issue_comment', payload, delivery);
    expect(again).toMatchObject({ status: 200, body: { accepted: false, reason: 'duplicate' } });

    const triggers = await triggersFor(threadId);
    expect(triggers).toHaveLength(1);
    expect(triggers[0]?.data).toMatchObject({
      source: 'github',
      deliveryId: delivery,
      text: '@caravel fix the parser',
      trusted: true,
      author: { externalId: 'octocat' },
    });
  });

  it('takes a signed form-encoded GitHub delivery, the default of hooks made through the REST API', async () => {
    const payload = githubPayload.issueComment('@caravel fix the form + its 100% edge & co', {
      pr: true,
    });
    const comment = { ...payload.comment, id: 7_000_001 };
    const issue = { ...payload.issue, number: 4242 };
    const form = `payload=${encodeURIComponent(JSON.stringify({ ...payload, comment, issue }))}`;
    const headers = (signed: string) => ({
      'content-type': 'application/x-www-form-urlencoded',
      'x-github-event': 'issue_comment',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${hmac('gh-secret', signed)}`,
    });

    // Signed over anything but the form bytes as sent (here: the JSON inside), it is refused.
    const json = decodeURIComponent(form.slice('payload='.length));
    expect(await post('/webhooks/github', form, headers(json))).toMatchObject({ status: 401 });
    const answer = await post('/webhooks/github', form, headers(form));
    expect(answer).toMatchObject({ status: 200, body: { accepted: true } });
    const triggers = await triggersFor(answer.body.threadId as string);
    expect(triggers).toHaveLength(1);
    expect(triggers[0]?.data).toMatchObject({
      source: 'github',
      text: '@caravel fix the form + its 100% edge & co',
    });

    const noPayload = await post('/webhooks/github', 'other=1', headers('other=1'));
    expect(noPayload).toMatchObject({
      status: 400,
      body: { error: { code: 'MESSAGE_MALFORMED', message: expect.stringMatching(/payload/) } },
    });
  });

  it('records a CI event with 202: published once when it names a check, else not', async () => {
    const answer = await github('check_run', githubPayload.checkRun([99]));
    expect(answer).toMatchObject({ status: 202, body: { accepted: false, reason: 'recorded' } });
    expect(await triggersFor(answer.body.threadId as string)).toHaveLength(0);

    const named = githubPayload.checkRun([98]);
    Object.assign(named.check_run, { name: 'lint', status: 'completed', head_sha: 'abc1234' });
    const delivery = randomUUID();
    const published = await github('check_run', named, delivery);
    expect(published).toMatchObject({ status: 202, body: { reason: 'recorded' } });
    expect(await github('check_run', named, delivery)).toMatchObject({
      body: { reason: 'duplicate' },
    });
    const messages = await triggersFor(published.body.threadId as string);
    expect(messages.map((m) => [m.type, m.data])).toEqual([
      [
        'trigger.ci.check_reported',
        expect.objectContaining({
          headSha: 'abc1234',
          check: { kind: 'check_run', name: 'lint', status: 'completed', conclusion: 'failure' },
        }),
      ],
    ]);
  });

  it('answers 401 with a coded body and no stack for an unsigned or badly signed request', async () => {
    const body = JSON.stringify(githubPayload.issueComment('@caravel go'));
    const unsigned = await post('/webhooks/github', body, {
      'x-github-event': 'issue_comment',
      'x-github-delivery': randomUUID(),
    });
    expect(unsigned.status).toBe(401);
    expect(unsigned.body).toEqual({
      error: { code: 'SIGNATURE_INVALID', message: expect.any(String) as unknown },
    });
    expect(unsigned.text).not.toMatch(/\bat \S+ \(|\.ts:\d+/);
    const forged = await post('/webhooks/github', body, {
      'x-github-event': 'issue_comment',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${hmac('wrong', body)}`,
    });
    expect(forged.status).toBe(401);
  });

  it('fails closed on a source whose secret is not configured', async () => {
    const answer = await post('/webhooks/linear', '{}', { 'linear-signature': hmac('', '{}') });
    expect(answer).toMatchObject({ status: 401, body: { error: { code: 'SIGNATURE_INVALID' } } });
  });

  it('answers the Slack url_verification challenge', async () => {
    const answer = await slack({ token: 't', challenge: 'ch-123', type: 'url_verification' });
    expect(answer).toEqual({
      status: 200,
      body: { challenge: 'ch-123' },
      text: '{"challenge":"ch-123"}',
    });
  });

  it('starts one trigger for a Slack app_mention and its message twin, and drops a retry', async () => {
    const ts = `${Math.floor(NOW.getTime() / 1000)}.000${Math.floor(Math.random() * 900 + 100)}`;
    const mention = slackEvent({ type: 'app_mention', text: '<@UBOT> fix it', ts }, `Ev${ts}a`);
    const twin = slackEvent({ type: 'message', text: '<@UBOT> fix it', ts }, `Ev${ts}b`);

    const first = await slack(mention);
    expect(first).toMatchObject({ status: 200, body: { accepted: true } });
    expect(await slack(twin)).toMatchObject({ body: { accepted: false, reason: 'duplicate' } });
    const retry = await slack(mention, {
      'x-slack-retry-num': '1',
      'x-slack-retry-reason': 'http_timeout',
    });
    expect(retry).toMatchObject({ status: 200, body: { accepted: false, reason: 'duplicate' } });

    const triggers = await triggersFor(first.body.threadId as string);
    expect(triggers).toHaveLength(1);
    expect(triggers[0]?.data).toMatchObject({
      source: 'slack',
      deliveryId: `Ev${ts}a`,
      trusted: false,
    });
  });

  it('takes an untagged Slack thread reply only once Caravel has the thread', async () => {
    const root = `${Math.floor(NOW.getTime() / 1000)}.100${Math.floor(Math.random() * 900 + 100)}`;
    const reply = (id: string) =>
      slackEvent({ type: 'message', text: 'and the README', ts: `${root}9`, thread_ts: root }, id);
    const before = await slack(reply(`Ev${root}-1`));
    expect(before).toMatchObject({
      body: { accepted: false, reason: 'not a thread Caravel is in' },
    });

    const mention = await slack(
      slackEvent({ type: 'app_mention', text: '<@UBOT> hi', ts: root }, `Ev${root}-0`),
    );
    const threadId = mention.body.threadId as string;
    await new ThreadRepository(database.db).upsert({ id: threadId, source: 'slack' });
    const after = await slack(reply(`Ev${root}-2`));
    expect(after).toMatchObject({ status: 200, body: { accepted: true, threadId } });
    expect(await triggersFor(threadId)).toHaveLength(2);
  });

  it("stops the thread of a message on a trusted person's signed ❌, and on nothing else", async () => {
    const root = `${Math.floor(NOW.getTime() / 1000)}.200${Math.floor(Math.random() * 900 + 100)}`;
    const mention = await slack(
      slackEvent({ type: 'app_mention', text: '<@UBOT> hi', ts: root }, `Ev${root}-0`),
    );
    const threadId = mention.body.threadId as string;
    await new ThreadRepository(database.db).upsert({ id: threadId, source: 'slack' });
    await slack(
      slackEvent({ type: 'message', text: 'more', ts: `${root}9`, thread_ts: root }, `Ev${root}-1`),
    );
    // ❌ on the thread's reply (not its root): the reply's own trigger names the thread.
    const reaction = (user: string, emoji: string, id: string) =>
      slackEvent(
        {
          type: 'reaction_added',
          user,
          reaction: emoji,
          item: { type: 'message', channel: 'C0123', ts: `${root}9` },
        },
        id,
      );
    const refused = await slack(reaction('U0USER', 'x', `Ev${root}-2`));
    expect(refused.body).toMatchObject({
      accepted: false,
      reason: expect.stringContaining('may not stop'),
    });
    expect((await slack(reaction('U0BOSS', 'thumbsup', `Ev${root}-3`))).body).toMatchObject({
      accepted: false,
    });
    const forged = await post(
      '/webhooks/slack',
      JSON.stringify(reaction('U0BOSS', 'x', `Ev${root}-4`)),
      {
        'x-slack-request-timestamp': String(Math.floor(NOW.getTime() / 1000)),
        'x-slack-signature': `v0=${hmac('wrong-secret', 'x')}`,
      },
    );
    expect(forged.status).toBe(401);

    const stopped = await slack(reaction('U0BOSS', 'x', `Ev${root}-5`));
    expect(stopped).toMatchObject({ status: 200, body: { accepted: true, threadId } });
    const commands: Envelope[] = [];
    for await (const message of bus.replay(STREAMS.COMMANDS, { threadId })) {
      commands.push(message.envelope);
    }
    expect(commands.map((command) => [command.type, command.data])).toEqual([
      [
        'cmd.thread.stop',
        {
          threadId,
          source: 'slack',
          requestedBy: { externalId: 'U0BOSS' },
          requestId: `Ev${root}-5`,
        },
      ],
    ]);
  });
});
