import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicFlavour } from './anthropic-flavour.js';
import {
  isFakeErrorReply,
  type FakeErrorReply,
  type FakeIds,
  type FakeLlmFlavour,
  type FakeLlmReply,
  type RecordedLlmRequest,
} from './fake-llm.types.js';
import { openAiFlavour } from './openai-flavour.js';

/**
 * A loopback server speaking one LLM provider's wire format, answering from a queue of scripted
 * replies and recording every request. A request with no reply left gets a 500 whose message
 * says so, so a test that under-scripts fails loudly instead of hanging.
 */
export class FakeLlmServer {
  /** Every request received, in order (including ones answered with an error). */
  readonly requests: RecordedLlmRequest[] = [];
  private readonly replies: FakeLlmReply[] = [];
  private responder: ((request: RecordedLlmRequest) => FakeLlmReply) | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  private seq = 0;

  private constructor(
    private readonly flavour: FakeLlmFlavour,
    private server: Server,
    private readonly port: number,
  ) {}

  /** Starts a server for `flavour` on 127.0.0.1 and `port` (default: a random free one). */
  static async start(flavour: FakeLlmFlavour, port = 0): Promise<FakeLlmServer> {
    // The handler needs the instance, which needs the listening server's port.
    const holder: { instance?: FakeLlmServer } = {};
    const server = await listen(port, (req, res) => holder.instance?.serve(req, res));
    const instance = new FakeLlmServer(flavour, server, (server.address() as AddressInfo).port);
    holder.instance = instance;
    return instance;
  }

  /** The base URL to give the provider class (`…/v1` for OpenAI, the origin for Anthropic). */
  get baseUrl(): string {
    const origin = `http://127.0.0.1:${this.port}`;
    return this.flavour.name === 'openai' ? `${origin}/v1` : origin;
  }

  /** Queues replies, answered in order, one per request. */
  enqueue(...replies: FakeLlmReply[]): this {
    this.replies.push(...replies);
    return this;
  }

  /**
   * Answers every request the queue has no reply for with what `responder` makes of it: a
   * stateless stand-in for a model, deciding from the conversation in the request (several
   * concurrent runs, runs resumed after an interrupt) where a queue cannot.
   */
  respondWith(responder: (request: RecordedLlmRequest) => FakeLlmReply): this {
    this.responder = responder;
    return this;
  }

  /** Drops the replies not yet used: a test that failed midway leaves its own to the next. */
  clear(): this {
    this.replies.length = 0;
    return this;
  }

  /** Replies not yet used. */
  get pending(): number {
    return this.replies.length;
  }

  /** Stops the server, dropping open connections and pending delays. */
  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /**
   * Restarts the server as a real one restarts: open connections and pending delays are dropped,
   * it listens again on the same port, and it numbers its answers and their tool calls from 1
   * again (so they repeat the ids it gave before). Queued replies, the responder and the recorded
   * requests are kept.
   */
  async restart(): Promise<void> {
    await this.close();
    this.seq = 0;
    this.server = await listen(this.port, (req, res) => this.serve(req, res));
  }

  private serve(req: IncomingMessage, res: ServerResponse): void {
    this.handle(req, res).catch((error: unknown) => {
      res.destroy(error instanceof Error ? error : new Error(String(error)));
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const recorded = await record(req);
    this.requests.push(recorded);
    if (req.method !== 'POST' || recorded.path !== this.flavour.path) {
      this.sendError(res, {
        error: { status: 404, message: `no route ${req.method} ${recorded.path}` },
      });
      return;
    }
    const reply = this.replies.shift() ?? this.responder?.(recorded);
    if (reply === undefined) {
      this.sendError(res, { error: { status: 500, message: 'fake LLM: no scripted reply left' } });
      return;
    }
    await this.wait(reply.delayMs ?? 0, res);
    if (res.destroyed) return;
    if (isFakeErrorReply(reply)) return this.sendError(res, reply);
    this.seq += 1;
    const seq = this.seq;
    const ids: FakeIds = { seq, toolCallId: (index) => `call_fake_${seq}_${index + 1}` };
    const model = typeof recorded.body?.['model'] === 'string' ? recorded.body['model'] : 'fake';
    if (recorded.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(
        this.flavour
          .streamFrames(reply, ids, model)
          .map((frame) => `${frame}\n\n`)
          .join(''),
      );
      return;
    }
    sendJson(res, 200, this.flavour.messageBody(reply, ids, model), {});
  }

  private wait(ms: number, res: ServerResponse): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
      res.once('close', () => {
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve();
      });
    });
  }

  private sendError(res: ServerResponse, reply: FakeErrorReply): void {
    const { status, message, type, retryAfterSeconds } = reply.error;
    const headers: Record<string, string> =
      retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
    sendJson(res, status, this.flavour.errorBody(status, message, type), headers);
  }
}

async function listen(
  port: number,
  serve: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Server> {
  const server = createServer(serve);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return server;
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function record(req: IncomingMessage): Promise<RecordedLlmRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  let body: Record<string, unknown> | null = null;
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    body = null;
  }
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  return {
    method: req.method ?? '',
    path,
    headers: req.headers,
    body,
    stream: body?.['stream'] === true,
  };
}

/**
 * Starts a fake OpenAI Chat Completions server on `port` (default: a random free one); give
 * `baseUrl` to `ChatOpenAI`'s `configuration`.
 */
export function startFakeOpenAi(port = 0): Promise<FakeLlmServer> {
  return FakeLlmServer.start(openAiFlavour, port);
}

/** Starts a fake Anthropic Messages server; give `baseUrl` to `ChatAnthropic`'s `anthropicApiUrl`. */
export function startFakeAnthropic(): Promise<FakeLlmServer> {
  return FakeLlmServer.start(anthropicFlavour);
}
