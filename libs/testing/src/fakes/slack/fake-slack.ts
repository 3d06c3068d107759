import {
  LoopbackApi,
  bearerToken,
  textOf,
  type FakeResponse,
  type RecordedCall,
} from '../http/loopback-api.js';

/** A message the fake Slack holds. */
export interface FakeSlackMessage {
  channel: string;
  ts: string;
  /** The thread's root ts; equal to `ts` for a root message. */
  thread_ts: string;
  text: string;
  user: string;
  bot_id?: string;
  /** Message metadata (`event_type`, `event_payload`) as posted. */
  metadata?: Record<string, unknown>;
  reactions: { name: string; users: string[] }[];
}

/** An assistant thread status as set (`assistant.threads.setStatus`); `''` clears it. */
export interface FakeSlackStatus {
  channel_id: string;
  thread_ts: string;
  status: string;
}

/**
 * A Slack Web API stand-in on 127.0.0.1 (`slackApiUrl` = {@link apiUrl}): `auth.test`,
 * `chat.postMessage`, `conversations.replies`, `reactions.add` and
 * `assistant.threads.setStatus` (every status kept in {@link statuses}) over an in-memory
 * workspace.
 * Like Slack it answers HTTP 200 with `ok: false` and an error string (`not_authed`,
 * `invalid_auth`, `channel_not_found`, `already_reacted`, ...); rate limits are scripted 429s.
 */
export class FakeSlack extends LoopbackApi {
  readonly messages: FakeSlackMessage[] = [];
  /** Every assistant thread status set, in order (an empty `status` cleared it). */
  readonly statuses: FakeSlackStatus[] = [];
  private readonly tokens = new Map<string, string>();
  private readonly channels = new Set<string>();
  private clock = 1_700_000_000;
  private seq = 0;

  constructor() {
    super();
    this.authorize((call) => this.check(call));
    this.route('POST', '/api/auth.test', (call) =>
      ok({ user_id: this.userOf(call), team_id: 'T1' }),
    );
    this.route('POST', '/api/chat.postMessage', (call) => this.postMessage(call));
    this.route('POST', '/api/conversations.replies', (call) => this.replies(call));
    this.route('POST', '/api/reactions.add', (call) => this.react(call));
    this.route('POST', '/api/assistant.threads.setStatus', (call) => this.setStatus(call));
  }

  /** The `slackApiUrl` to give `WebClient` (ends with `/`, as the client requires). */
  get apiUrl(): string {
    return `${this.origin}/api/`;
  }

  /** Accepts `token` as a bot token acting as `userId`. */
  addToken(token: string, userId = 'UBOT'): this {
    this.tokens.set(token, userId);
    return this;
  }

  /** Declares a channel the bot is in. */
  addChannel(channel: string): this {
    this.channels.add(channel);
    return this;
  }

  /** Seeds a message (a thread root when `threadTs` is absent); returns its ts. */
  seed(channel: string, text: string, user: string, threadTs?: string): string {
    this.channels.add(channel);
    const ts = this.nextTs();
    this.messages.push({ channel, ts, thread_ts: threadTs ?? ts, text, user, reactions: [] });
    return ts;
  }

  private nextTs(): string {
    this.seq += 1;
    return `${this.clock + this.seq}.${String(this.seq).padStart(6, '0')}`;
  }

  private check(call: RecordedCall): FakeResponse | null {
    const token = bearerToken(call) ?? stringField(call, 'token');
    if (!token) return fail('not_authed');
    return this.tokens.has(token) ? null : fail('invalid_auth');
  }

  private userOf(call: RecordedCall): string {
    return this.tokens.get(bearerToken(call) ?? stringField(call, 'token')) ?? 'UBOT';
  }

  private postMessage(call: RecordedCall): FakeResponse {
    const channel = stringField(call, 'channel');
    const text = stringField(call, 'text');
    if (!this.channels.has(channel)) return fail('channel_not_found');
    if (text === '' && !call.body?.['blocks']) return fail('no_text');
    const threadTs = stringField(call, 'thread_ts');
    if (threadTs && !this.messages.some((m) => m.channel === channel && m.ts === threadTs)) {
      return fail('thread_not_found');
    }
    const ts = this.nextTs();
    const user = this.userOf(call);
    const metadata = parseMetadata(call.body?.['metadata']);
    const message: FakeSlackMessage = {
      channel,
      ts,
      thread_ts: threadTs || ts,
      text,
      user,
      bot_id: 'B1',
      ...(metadata ? { metadata } : {}),
      reactions: [],
    };
    this.messages.push(message);
    return ok({
      channel,
      ts,
      message: { type: 'message', text, user, ts, thread_ts: message.thread_ts },
    });
  }

  private replies(call: RecordedCall): FakeResponse {
    const channel = stringField(call, 'channel');
    const ts = stringField(call, 'ts');
    if (!this.channels.has(channel)) return fail('channel_not_found');
    const thread = this.messages.filter((m) => m.channel === channel && m.thread_ts === ts);
    if (thread.length === 0) return fail('thread_not_found');
    const limit = Number(stringField(call, 'limit') || 1000);
    const withMetadata = String(call.body?.['include_all_metadata']) === 'true';
    const messages = thread.slice(0, limit).map((m) => ({
      type: 'message',
      ts: m.ts,
      thread_ts: m.thread_ts,
      text: m.text,
      user: m.user,
      ...(m.bot_id ? { bot_id: m.bot_id } : {}),
      ...(m.metadata && withMetadata ? { metadata: m.metadata } : {}),
    }));
    return ok({ messages, has_more: thread.length > limit });
  }

  private react(call: RecordedCall): FakeResponse {
    const channel = stringField(call, 'channel');
    const name = stringField(call, 'name');
    const target = this.messages.find(
      (m) => m.channel === channel && m.ts === stringField(call, 'timestamp'),
    );
    if (!this.channels.has(channel)) return fail('channel_not_found');
    if (!target) return fail('message_not_found');
    const user = this.userOf(call);
    const reaction = target.reactions.find((r) => r.name === name);
    if (reaction?.users.includes(user)) return fail('already_reacted');
    if (reaction) reaction.users.push(user);
    else target.reactions.push({ name, users: [user] });
    return ok({});
  }

  private setStatus(call: RecordedCall): FakeResponse {
    const channel = stringField(call, 'channel_id');
    const threadTs = stringField(call, 'thread_ts');
    if (!call.body || !('status' in call.body)) return fail('invalid_arguments');
    if (!this.channels.has(channel)) return fail('channel_not_found');
    if (!this.messages.some((m) => m.channel === channel && m.ts === threadTs)) {
      return fail('invalid_thread_ts');
    }
    this.statuses.push({
      channel_id: channel,
      thread_ts: threadTs,
      status: stringField(call, 'status'),
    });
    return ok({});
  }
}

function stringField(call: RecordedCall, field: string): string {
  return textOf(call.body?.[field]);
}

function parseMetadata(value: unknown): Record<string, unknown> | undefined {
  if (typeof value === 'object' && value !== null) return value as Record<string, unknown>;
  if (typeof value !== 'string' || value === '') return undefined;
  try {
    return JSON.parse(value) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function ok(body: Record<string, unknown>): FakeResponse {
  return { status: 200, body: { ok: true, ...body } };
}

function fail(error: string): FakeResponse {
  return { status: 200, body: { ok: false, error } };
}
