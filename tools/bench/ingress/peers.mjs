// What a user would pick instead of Caravel's ingress, each doing the same work on the same signed
// deliveries: verify the signature on the raw bytes, drop a delivery already seen (a Map of ids
// standing for the dedupe record) and keep what it would publish (an array push standing for the
// publish). In memory, so these are the ceiling a durable ingress is compared with.
//   - Probot's way: `@octokit/webhooks`' `createNodeMiddleware` on a plain `http` server (Probot
//     itself adds its framework on top of it: this is its floor);
//   - Slack Bolt: an `App` with its `HTTPReceiver`, or with its `ExpressReceiver`, and an
//     `app.event('app_mention')` listener.
// Each returns { url, close, handled }: `handled` counts deliveries its handler took, so the bench
// can check the handler ran for every 2xx it counted.
import { createServer } from 'node:http';
import { BENCH_SECRETS } from './signing.mjs';

/** The in-memory stand-in for "dedupe record, then publish": how many it took. */
function memoryIntake() {
  const seen = new Map();
  const published = [];
  return {
    take(deliveryId, message) {
      if (seen.has(deliveryId)) return false;
      seen.set(deliveryId, Date.now());
      published.push(message);
      return true;
    },
    handled: () => seen.size,
  };
}

const quiet = { debug() {}, info() {}, warn() {}, error: (...args) => console.error(...args) };

/** `@octokit/webhooks` middleware on `node:http`, answering `POST /webhooks/github`. */
export async function startOctokit() {
  const { Webhooks, createNodeMiddleware } = await import('@octokit/webhooks');
  const intake = memoryIntake();
  const webhooks = new Webhooks({ secret: BENCH_SECRETS.github, log: quiet });
  webhooks.on('issue_comment', ({ id, payload }) => {
    intake.take(id, { repository: payload.repository.full_name, text: payload.comment.body });
  });
  const middleware = createNodeMiddleware(webhooks, { path: '/webhooks/github', log: quiet });
  // The middleware resolves false for a path it does not serve (it would call `next`): 404.
  const server = createServer((request, response) => {
    middleware(request, response).then(
      (served) => served || response.writeHead(404).end(),
      (error) => {
        console.error(error);
        if (!response.headersSent) response.writeHead(500).end();
      },
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((done) => server.close(done)),
    handled: intake.handled,
  };
}

/**
 * Bolt with the given receiver class, answering `POST /webhooks/slack`. A bot token with its ids
 * given and verification off: Bolt calls no Slack API (no `auth.test`) while it handles events.
 */
async function startBolt(receiverOf) {
  const bolt = await import('@slack/bolt');
  const { App, LogLevel } = bolt.default ?? bolt;
  const intake = memoryIntake();
  const receiver = receiverOf(bolt.default ?? bolt, {
    signingSecret: BENCH_SECRETS.slack,
    endpoints: '/webhooks/slack',
    logLevel: LogLevel.ERROR,
  });
  const app = new App({
    receiver,
    token: 'xoxb-bench',
    botId: 'B0BENCH',
    botUserId: 'UBENCHBOT',
    tokenVerificationEnabled: false,
    logLevel: LogLevel.ERROR,
  });
  app.event('app_mention', async ({ body, event }) => {
    intake.take(body.event_id, { channel: event.channel, ts: event.ts, text: event.text });
  });
  const server = await app.start({ port: 0, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => app.stop(),
    handled: intake.handled,
  };
}

/** Bolt's default receiver for HTTP: its own `node:http` listener. */
export const startBoltHttp = () =>
  startBolt(({ HTTPReceiver }, options) => new HTTPReceiver(options));

/** Bolt on Express, as most Bolt apps that share a web server run it. */
export const startBoltExpress = () =>
  startBolt(({ ExpressReceiver }, options) => new ExpressReceiver(options));
