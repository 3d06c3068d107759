import { githubThreadId, slackThreadId } from '@caravel/contracts';
import { createHmac, randomInt, randomUUID } from 'node:crypto';
import { githubPayload, slackEvent } from '../../apps/ingress/src/events/payload.factory.js';
import type { SignedRequest } from '../../apps/ingress/src/testing/webhook-request.js';

/** The secrets and handles ingress runs with in the chaos platform. */
export const SENDER_SETTINGS = {
  GITHUB_WEBHOOK_SECRET: 'chaos-github-secret',
  SLACK_SIGNING_SECRET: 'chaos-slack-secret',
  SLACK_BOT_USER_ID: 'UCHAOSBOT',
  GITHUB_BOT_HANDLE: 'caravel',
};

export const SLACK_TEAM = 'T0001';
export const GITHUB_REPOSITORY = { owner: 'acme', name: 'widgets' };

const hmacHex = (secret: string, text: string | Buffer) =>
  createHmac('sha256', secret).update(text).digest('hex');

/** GitHub's `X-Hub-Signature-256` over `body`. */
export function githubSignature(body: string | Buffer): string {
  return `sha256=${hmacHex(SENDER_SETTINGS.GITHUB_WEBHOOK_SECRET, body)}`;
}

/** Slack's v0 headers for `body`, signed now. */
export function slackHeaders(body: string | Buffer): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  const base = Buffer.concat([Buffer.from(`v0:${timestamp}:`), Buffer.from(body)]);
  return {
    'x-slack-request-timestamp': timestamp,
    'x-slack-signature': `v0=${hmacHex(SENDER_SETTINGS.SLACK_SIGNING_SECRET, base)}`,
  };
}

/** Issue numbers (one thread each) no other request of this process uses. */
let nextNumber = randomInt(1_000, 900_000) * 1_000;

/**
 * An `issue_comment` mentioning the bot on its own issue of acme/widgets (a thread of its own),
 * as GitHub delivers it: the body fixed once, so every send of it is byte for byte the same.
 */
export class GithubMention {
  readonly number = (nextNumber += 1);
  readonly deliveryId = randomUUID();
  readonly body: string;
  readonly threadId: string;

  constructor(text: string) {
    const payload = githubPayload.issueComment(text);
    payload.issue.id = 4_000_000_000 + this.number;
    payload.issue.number = this.number;
    payload.comment.id = 7_000_000_000 + this.number;
    this.body = JSON.stringify(payload);
    this.threadId = githubThreadId({
      owner: GITHUB_REPOSITORY.owner,
      repo: GITHUB_REPOSITORY.name,
      number: this.number,
    });
  }

  /** The signed request; another `deliveryId` is the same comment under a second hook's GUID. */
  request(deliveryId = this.deliveryId): SignedRequest {
    return {
      path: '/webhooks/github',
      body: this.body,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': deliveryId,
        'x-hub-signature-256': githubSignature(this.body),
      },
    };
  }
}

/**
 * A Slack `app_mention` starting a thread of its own, and the `message` event Slack sends beside
 * it (another event id, the same message): each re-signed at every send, as Slack signs retries.
 */
export class SlackMention {
  readonly ts = `${1_700_000_000 + (nextNumber += 1)}.000100`;
  readonly channel = 'C0CHAOS';
  readonly eventId = `Ev${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`;
  readonly twinEventId = `Ev${randomUUID().replace(/-/g, '').slice(0, 12).toUpperCase()}`;
  readonly threadId = slackThreadId({ team: SLACK_TEAM, channel: this.channel, threadTs: this.ts });

  constructor(private readonly text: string) {}

  /** The `app_mention` (or its `message` twin); `retry` adds Slack's retry headers. */
  request(kind: 'app_mention' | 'message' = 'app_mention', retry?: number): SignedRequest {
    const body = JSON.stringify(
      slackEvent(
        {
          type: kind,
          channel: this.channel,
          user: 'U0PERSON',
          text: `<@${SENDER_SETTINGS.SLACK_BOT_USER_ID}> ${this.text}`,
          ts: this.ts,
          event_ts: this.ts,
        },
        kind === 'app_mention' ? this.eventId : this.twinEventId,
      ),
    );
    return {
      path: '/webhooks/slack',
      body,
      headers: {
        'content-type': 'application/json',
        ...slackHeaders(body),
        ...(retry
          ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_timeout' }
          : {}),
      },
    };
  }
}

/** What ingress answered one send (status 0: no HTTP answer at all). */
export interface Answer {
  status: number;
  retryAfter: string | null;
  accepted: boolean;
  reason: string | null;
  /** When it was sent (epoch ms). */
  at: number;
  /** Milliseconds from the send to the last byte of the answer. */
  ms: number;
  error: string | null;
}

export const is2xx = (answer: Answer) => answer.status >= 200 && answer.status < 300;

/** POSTs `request` to `baseUrl`; never throws (a dropped connection is status 0). */
export async function send(
  baseUrl: string,
  request: SignedRequest,
  timeoutMs = 30_000,
): Promise<Answer> {
  const at = Date.now();
  const started = performance.now();
  try {
    const response = await fetch(`${baseUrl}${request.path}`, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    let body: { accepted?: unknown; reason?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = {};
    }
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      accepted: body.accepted === true,
      reason: typeof body.reason === 'string' ? body.reason : null,
      at,
      ms: performance.now() - started,
      error: null,
    };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return {
      status: 0,
      retryAfter: null,
      accepted: false,
      reason: null,
      at,
      ms: performance.now() - started,
      error: cause instanceof Error ? cause.message : String(cause),
    };
  }
}
