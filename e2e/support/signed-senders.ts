import { LoopbackApi } from '@caravel/testing';
import { createHash, createHmac, generateKeyPairSync, randomUUID, sign } from 'node:crypto';

/** What ingress answered. */
export interface Answer {
  status: number;
  body: { accepted?: boolean; threadId?: string; reason?: string } & Record<string, unknown>;
}

async function post(url: string, body: string, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

const hmacHex = (secret: string, text: string) =>
  createHmac('sha256', secret).update(text).digest('hex');

/** A Slack message event as the Events API wraps it. */
export interface SlackMessageEvent {
  type: 'app_mention' | 'message';
  user: string;
  text: string;
  ts: string;
  channel: string;
  thread_ts?: string;
}

/**
 * Slack's Events API: an `event_callback` envelope, signed `v0=` HMAC-SHA256 of
 * `v0:<timestamp>:<body>` with the app's signing secret, the timestamp in its own header.
 */
export class SlackSender {
  constructor(
    private readonly signingSecret: string,
    private readonly team: string,
  ) {}

  /** A retry passes the first send's `eventId`, as Slack retries an event under its id. */
  deliver(
    ingressUrl: string,
    event: SlackMessageEvent,
    eventId = `Ev${randomUUID().replace(/-/g, '').slice(0, 10).toUpperCase()}`,
  ): Promise<Answer> {
    const body = JSON.stringify({
      token: 'verification-token-unused',
      team_id: this.team,
      api_app_id: 'A0E2E',
      event: { ...event, event_ts: event.ts, channel_type: 'channel' },
      type: 'event_callback',
      event_id: eventId,
      event_time: Math.floor(Date.now() / 1000),
    });
    const timestamp = String(Math.floor(Date.now() / 1000));
    return post(`${ingressUrl}/webhooks/slack`, body, {
      'x-slack-request-timestamp': timestamp,
      'x-slack-signature': `v0=${hmacHex(this.signingSecret, `v0:${timestamp}:${body}`)}`,
    });
  }
}

/**
 * A Linear webhook: `Linear-Signature` is the hex HMAC-SHA256 of the body, whose
 * `webhookTimestamp` (milliseconds) is what freshness is judged by; `Linear-Delivery` its id.
 */
export class LinearSender {
  constructor(private readonly secret: string) {}

  deliverComment(
    ingressUrl: string,
    comment: {
      issue: { id: string; identifier: string; title: string };
      body: string;
      user: { id: string; name: string };
    },
    /** A retry passes the first send's ids and time: Linear redelivers the same event. */
    delivery: { commentId: string; deliveryId: string; at: Date } = {
      commentId: randomUUID(),
      deliveryId: randomUUID(),
      at: new Date(),
    },
  ): Promise<Answer> {
    const { commentId, at: now } = delivery;
    const body = JSON.stringify({
      action: 'create',
      type: 'Comment',
      createdAt: now.toISOString(),
      url: `https://linear.app/acme/issue/${comment.issue.identifier}#comment-${commentId.slice(0, 8)}`,
      webhookId: delivery.deliveryId,
      // Signed at each send: a redelivery is judged fresh by its own time.
      webhookTimestamp: Date.now(),
      organizationId: randomUUID(),
      actor: { id: comment.user.id, name: comment.user.name, type: 'user' },
      data: {
        id: commentId,
        body: comment.body,
        issueId: comment.issue.id,
        userId: comment.user.id,
        createdAt: now.toISOString(),
        issue: comment.issue,
      },
    });
    return post(`${ingressUrl}/webhooks/linear`, body, {
      'linear-signature': hmacHex(this.secret, body),
      'linear-delivery': delivery.deliveryId,
      'linear-event': 'Comment',
    });
  }
}

/**
 * A Jira Automation "Send web request" action: the rule's shared secret in its header, plus the
 * timestamped HMAC-SHA256 of `<timestamp>.<body>`.
 */
export class JiraRuleSender {
  constructor(
    private readonly sharedSecret: string,
    private readonly hmacSecret: string,
    private readonly secretHeader = 'x-caravel-secret',
  ) {}

  deliver(ingressUrl: string, rule: Record<string, unknown>): Promise<Answer> {
    const body = JSON.stringify(rule);
    const timestamp = String(Math.floor(Date.now() / 1000));
    return post(`${ingressUrl}/webhooks/jira`, body, {
      [this.secretHeader]: this.sharedSecret,
      'x-caravel-timestamp': timestamp,
      'x-caravel-signature': `sha256=${hmacHex(this.hmacSecret, `${timestamp}.${body}`)}`,
    });
  }
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Atlassian Connect's query string hash of a request without a query: `METHOD&path&`. */
export function connectQsh(method: string, path: string): string {
  return createHash('sha256').update(`${method.toUpperCase()}&${path}&`).digest('hex');
}

/**
 * Atlassian's side of a Connect app: the install-key server (`CONNECT_KEYS_URL/<kid>`), a
 * signed install (RS256 with Atlassian's key, `aud` the app's base URL), and webhooks signed
 * HS256 with the tenant's shared secret, each with the request's `qsh`.
 */
export class ConnectSigner {
  readonly keys = new LoopbackApi();
  private readonly kid = `e2e-${randomUUID().slice(0, 8)}`;
  private readonly atlassian = generateKeyPairSync('rsa', { modulusLength: 2048 });
  readonly clientKey = randomUUID();
  readonly sharedSecret = `shared-${randomUUID()}`;

  constructor(private readonly appBaseUrl: string) {
    const pem = this.atlassian.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    this.keys.route('GET', `/${this.kid}`, () => ({ status: 200, body: pem }));
  }

  /** Starts the key server; resolves with `CONNECT_KEYS_URL`. */
  listen(): Promise<string> {
    return this.keys.listen();
  }

  close(): Promise<void> {
    return this.keys.close();
  }

  /** Installs the app on the Confluence site at `siteWikiUrl`, as Atlassian does. */
  install(ingressUrl: string, siteWikiUrl: string): Promise<Answer> {
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: this.clientKey,
      aud: this.appBaseUrl,
      iat: now,
      exp: now + 180,
      qsh: connectQsh('POST', '/connect/installed'),
    };
    const head = `${b64url({ alg: 'RS256', kid: this.kid, typ: 'JWT' })}.${b64url(claims)}`;
    const token = `${head}.${sign('sha256', Buffer.from(head), this.atlassian.privateKey).toString('base64url')}`;
    const body = JSON.stringify({
      key: 'caravel',
      clientKey: this.clientKey,
      sharedSecret: this.sharedSecret,
      baseUrl: siteWikiUrl,
      productType: 'confluence',
      description: 'e2e site',
      eventType: 'installed',
    });
    return post(`${ingressUrl}/connect/installed`, body, { authorization: `JWT ${token}` });
  }

  /** Delivers `comment_created` for a comment id, signed with the tenant's shared secret. */
  commentCreated(ingressUrl: string, commentId: string): Promise<Answer> {
    const path = '/connect/webhooks/comment-created';
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: this.clientKey, iat: now, exp: now + 180, qsh: connectQsh('POST', path) };
    const head = `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url(claims)}`;
    const signature = createHmac('sha256', this.sharedSecret).update(head).digest('base64url');
    const body = JSON.stringify({
      timestamp: Date.now(),
      comment: { id: Number(commentId), spaceKey: 'ignored', creatorAccountId: 'ignored' },
      userAccountId: 'ignored',
    });
    return post(`${ingressUrl}${path}`, body, { authorization: `JWT ${head}.${signature}` });
  }
}
