import { githubThreadId, STREAMS } from '@caravel/contracts';
import { openDatabase } from '@caravel/db';
import { connectJetStreamBus, Namespace, silentLogger } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import {
  createTestPostgresDatabase,
  serviceGate,
  testEnvironment,
  type TestPostgresDatabase,
  TcpProxy,
} from '@caravel/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { githubPayload } from './events/payload.factory.js';
import { IngressModule } from './ingress.module.js';
import { ingressConfigFrom } from './ingress.config.js';
import { postWebhook, type WebhookReply } from './testing/webhook-request.js';

const SECRET = 'gh-secret';
const config = ingressConfigFrom({ GITHUB_WEBHOOK_SECRET: SECRET });
const namespace = `ingress-outage-${randomBytes(4).toString('hex')}`;

function hostPort(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port) };
}

function viaProxy(url: string, proxy: TcpProxy): string {
  const parsed = new URL(url);
  parsed.hostname = '127.0.0.1';
  parsed.port = String(proxy.port);
  return parsed.toString();
}

async function dropNamespace(): Promise<void> {
  const nc = await connect({ servers: testEnvironment.TEST_NATS_URL });
  const jsm = await jetstreamManager(nc);
  for await (const name of jsm.streams.names()) {
    if (name.includes(namespace)) await jsm.streams.delete(name);
  }
  await nc.close();
}

/** Ingress on NATS JetStream + PostgreSQL, either of them reached through `proxy`. */
async function ingressThrough(proxied: 'postgres' | 'nats') {
  const created = await createTestPostgresDatabase();
  const target =
    proxied === 'postgres' ? testEnvironment.TEST_DATABASE_URL : testEnvironment.TEST_NATS_URL;
  const proxy = await TcpProxy.open(hostPort(target));
  const database = await openDatabase({
    url: proxied === 'postgres' ? viaProxy(created.url, proxy) : created.url,
  });
  const name = `ingress-outage-${proxied}`;
  const bus = await connectJetStreamBus({
    url: proxied === 'nats' ? viaProxy(target, proxy) : testEnvironment.TEST_NATS_URL,
    name,
    namespace,
    logger: silentLogger,
  });
  await bus.ensureStreams(Object.values(STREAMS));
  const host = await startServiceHost({
    runtime: composeRuntime({ name, mode: 'distributed', bus, database }),
    modules: [IngressModule.register(config)],
    port: 0,
    logLevels: ['fatal'],
  });
  return { created, proxy, host };
}

function deliver(host: ServiceHost, body: string, delivery: string): Promise<WebhookReply> {
  return postWebhook(host, {
    path: '/webhooks/github',
    headers: {
      'x-github-event': 'issue_comment',
      'x-github-delivery': delivery,
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
    body,
  });
}

/** Waits until the service reports itself ready again: the sender's retry comes after that. */
async function recovered(host: ServiceHost): Promise<void> {
  while ((await fetch(`${host.url}/health/ready`)).status !== 200) {
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * How many triggers the stream holds for a thread, asked of the server over a direct connection
 * (per-subject counts), so the answer does not depend on the proxied client's state.
 */
async function storedTriggers(threadId: string): Promise<number> {
  const space = new Namespace(namespace);
  const nc = await connect({ servers: testEnvironment.TEST_NATS_URL });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(space.streamName(STREAMS.TRIGGERS), {
      subjects_filter: space.subject(`thread.${threadId}.trigger.>`),
    });
    return Object.values(info.state.subjects ?? {}).reduce((sum, count) => sum + count, 0);
  } finally {
    await nc.close();
  }
}

/** A mention on its own issue (a comment of its own), so each test has a thread of its own. */
function mention(number: number) {
  const payload = githubPayload.issueComment('@caravel fix the parser');
  return JSON.stringify({
    ...payload,
    issue: { ...payload.issue, number },
    comment: { ...payload.comment, id: number },
  });
}

const gate = await serviceGate(['postgres', 'nats']);

gate.describe('ingress while a dependency is down', () => {
  afterAll(async () => {
    await dropNamespace();
  });

  describe.each(['postgres', 'nats'] as const)('%s unreachable', (proxied) => {
    let created: TestPostgresDatabase;
    let proxy: TcpProxy;
    let host: ServiceHost;

    beforeAll(async () => {
      ({ created, proxy, host } = await ingressThrough(proxied));
    });

    afterAll(async () => {
      await proxy?.start();
      await host?.close();
      await proxy?.stop();
      await created?.drop();
    });

    it('answers 503 with Retry-After and publishes nothing; the retry after recovery publishes once', async () => {
      const delivery = randomUUID();
      const number = proxied === 'postgres' ? 501 : 502;
      const body = mention(number);
      const threadId = githubThreadId({ owner: 'acme', repo: 'widgets', number });
      await proxy.stop();

      const refused = await deliver(host, body, delivery);
      expect(refused).toMatchObject({
        status: 503,
        retryAfter: '30',
        body: { error: { code: 'DEPENDENCY_UNAVAILABLE' } },
      });
      expect(refused.text).not.toMatch(/\bat \S+ \(|\.ts:\d+|127\.0\.0\.1/);

      await proxy.start();
      await recovered(host);
      const retried = await deliver(host, body, delivery);
      expect(retried).toMatchObject({ status: 200, body: { accepted: true, threadId } });
      expect(await storedTriggers(threadId)).toBe(1);
      expect(await deliver(host, body, delivery)).toMatchObject({
        status: 200,
        body: { reason: 'duplicate' },
      });
      expect(await storedTriggers(threadId)).toBe(1);
    });
  });
});
