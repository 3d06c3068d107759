import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import type { SignedRequest } from '../../apps/ingress/src/testing/webhook-request.js';
import {
  GithubMention,
  githubSignature,
  SlackMention,
  slackHeaders,
  type Answer,
} from './senders.js';

/** A seeded generator (mulberry32), so a run's cases can be made again from its seed. */
export class Rng {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  int(below: number): number {
    return Math.floor(this.next() * below);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  bytes(length: number): Buffer {
    return Buffer.from(Array.from({ length }, () => this.int(256)));
  }
}

/** A malformed request and the thread it would start were it (wrongly or rightly) accepted. */
export interface FuzzCase {
  readonly family: string;
  readonly threadId: string;
  /** An HTTP request fetch can send, or raw bytes for what fetch refuses to send. */
  readonly request: SignedRequest | { raw: Buffer };
}

const ROUTES = [
  '/webhooks/github',
  '/webhooks/slack',
  '/webhooks/linear',
  '/webhooks/jira',
  '/connect/webhooks/comment-created',
  '/connect/installed',
];

const CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=chaos',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/octet-stream',
];

const signedGithub = (body: string | Buffer, contentType = 'application/json'): SignedRequest => ({
  path: '/webhooks/github',
  body,
  headers: {
    'content-type': contentType,
    'x-github-event': 'issue_comment',
    'x-github-delivery': randomUUID(),
    'x-hub-signature-256': githubSignature(body),
  },
});

const signedSlack = (body: string | Buffer): SignedRequest => ({
  path: '/webhooks/slack',
  body,
  headers: { 'content-type': 'application/json', ...slackHeaders(body) },
});

function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A raw HTTP/1.1 request with `headerLines` as given (fetch would refuse most of them). */
function raw(path: string, headerLines: string[], body = ''): { raw: Buffer } {
  const head = [`POST ${path} HTTP/1.1`, 'Host: 127.0.0.1', ...headerLines, 'Connection: close'];
  return { raw: Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), Buffer.from(body)]) };
}

type Family = (rng: Rng) => FuzzCase;

const FAMILIES: Record<string, Family> = {
  'random bytes, unsigned': (rng) => ({
    family: 'random bytes, unsigned',
    threadId: randomUUID(),
    request: {
      path: rng.pick(ROUTES),
      body: rng.bytes(rng.int(4_096)),
      headers: { 'content-type': rng.pick(CONTENT_TYPES) },
    },
  }),
  'random bytes, signed': (rng) => ({
    family: 'random bytes, signed',
    threadId: randomUUID(),
    request: rng.int(2) ? signedGithub(rng.bytes(rng.int(4_096))) : signedSlack(rng.bytes(512)),
  }),
  'truncated JSON, signed': (rng) => {
    const mention = new GithubMention('@caravel chaos fuzz: truncated');
    const cut = mention.body.slice(0, 1 + rng.int(mention.body.length - 2));
    return {
      family: 'truncated JSON, signed',
      threadId: mention.threadId,
      request: signedGithub(cut),
    };
  },
  'wrong content type, signed': (rng) => {
    const mention = new GithubMention('@caravel chaos fuzz: content type');
    return {
      family: 'wrong content type, signed',
      threadId: mention.threadId,
      request: signedGithub(mention.body, rng.pick(CONTENT_TYPES.slice(1))),
    };
  },
  'NUL bytes, signed': (rng) => {
    const mention = new GithubMention(`@caravel chaos fuzz\u0000: NUL \ud800 ${rng.int(1e6)}`);
    // Half keep the NUL escaped (valid JSON), half carry a raw NUL byte (not JSON).
    const body = rng.int(2) ? mention.body : mention.body.replace('\\u0000', '\u0000');
    return { family: 'NUL bytes, signed', threadId: mention.threadId, request: signedGithub(body) };
  },
  'deep nesting, signed': (rng) => ({
    family: 'deep nesting, signed',
    threadId: randomUUID(),
    request: rng.int(2)
      ? signedGithub(nested(rng.pick([65, 1_000, 100_000])))
      : signedSlack(nested(rng.pick([65, 10_000]))),
  }),
  'huge header': (rng) => {
    const mention = new GithubMention('@caravel chaos fuzz: huge header');
    const request = signedGithub(mention.body);
    const size = rng.pick([8_000, 15_000, 40_000, 100_000]);
    return {
      family: 'huge header',
      threadId: mention.threadId,
      request: { ...request, headers: { ...request.headers, 'x-fill': 'x'.repeat(size) } },
    };
  },
  'wrong field types, signed': (rng) => {
    const mention = new GithubMention('@caravel chaos fuzz: types');
    const payload = JSON.parse(mention.body) as Record<string, unknown>;
    const key = rng.pick(['comment', 'issue', 'repository', 'sender', 'action']);
    payload[key] = rng.pick([null, 42, 'text', [], [1, 2], true, { id: 'x' }]);
    // A wrong field the mapper does not read (`sender`) can still be taken, on the mention's thread.
    return {
      family: 'wrong field types, signed',
      threadId: mention.threadId,
      request: signedGithub(JSON.stringify(payload)),
    };
  },
  'invalid UTF-8, signed': (rng) => {
    const mention = new GithubMention('@caravel chaos fuzz: utf8 XX');
    const bytes = Buffer.from(mention.body);
    const at = bytes.indexOf('XX');
    bytes[at] = 0xff;
    bytes[at + 1] = rng.pick([0xfe, 0xc0, 0x80]);
    return {
      family: 'invalid UTF-8, signed',
      threadId: mention.threadId,
      request: signedGithub(bytes),
    };
  },
  'stale or missing Slack signature': (rng) => {
    const mention = new SlackMention('chaos fuzz: stale');
    const request = mention.request();
    const headers = { ...request.headers };
    if (rng.int(2))
      headers['x-slack-request-timestamp'] = String(Math.floor(Date.now() / 1000) - 301);
    else delete headers['x-slack-signature'];
    return {
      family: 'stale or missing Slack signature',
      threadId: mention.threadId,
      request: { ...request, headers },
    };
  },
  'prototype keys, signed': () => {
    const body =
      '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}},"type":"event_callback","team_id":"T0001","event_id":"EvProto","event":{"type":"app_mention","__proto__":{"user":"U1"},"channel":"C1","ts":"1.2"}}';
    return { family: 'prototype keys, signed', threadId: randomUUID(), request: signedSlack(body) };
  },
  'malformed HTTP (raw)': (rng) => ({
    family: 'malformed HTTP (raw)',
    threadId: randomUUID(),
    request: rng.pick([
      raw(
        '/webhooks/github',
        ['Content-Type: application/json', 'X-Nul: a\u0000b', 'Content-Length: 2'],
        '{}',
      ),
      raw('/webhooks/github', ['Content-Length: 12', 'Content-Length: 3'], '{}'),
      raw('/webhooks/slack', ['Content-Length: -5'], '{}'),
      raw('/webhooks/slack', ['Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n'),
      raw('/webhooks/github', ['No colon here', 'Content-Length: 2'], '{}'),
      raw('/webhooks/github', ['Content-Length: 100'], '{"truncated":'),
      { raw: Buffer.from('GARBAGE\r\n\r\n') },
    ]),
  }),
};

/** `count` cases, a family at a time in turn, shaped by `rng`. */
export function fuzzCases(rng: Rng, count: number): FuzzCase[] {
  const families = Object.values(FAMILIES);
  return Array.from({ length: count }, (_, i) => families[i % families.length]!(rng));
}

/** One body over ingress's 25 MB cap (a 413 is the documented answer). */
export function oversized(): FuzzCase {
  return {
    family: 'over 25 MB, signed',
    threadId: randomUUID(),
    request: signedGithub(Buffer.alloc(25 * 1024 * 1024 + 1, 0x20)),
  };
}

/** Sends raw bytes; the answer's status line is read, or status 0 when none comes. */
export function sendRaw(baseUrl: string, bytes: Buffer, timeoutMs = 10_000): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  const at = Date.now();
  const started = performance.now();
  return new Promise((resolve) => {
    let received = '';
    const socket = connect(Number(port), hostname);
    const finish = (error: string | null) => {
      socket.destroy();
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received)?.[1];
      resolve({
        status: status ? Number(status) : 0,
        retryAfter: /\r\nretry-after: *(\S+)/i.exec(received)?.[1] ?? null,
        accepted: false,
        reason: null,
        at,
        ms: performance.now() - started,
        error: status ? null : (error ?? 'closed without an answer'),
      });
    };
    socket.setTimeout(timeoutMs, () => finish('timed out'));
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('end', () => finish(null));
    socket.on('error', (error) => finish(error.message));
    socket.on('connect', () => socket.end(bytes));
  });
}
