import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a fake received, as the test sees it. */
export interface RecordedCall {
  method: string;
  /** The path without the query string. */
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  /** Parsed JSON or form body; null when empty or neither. */
  body: Record<string, unknown> | null;
  rawBody: string;
}

/** What a route answers. */
export interface FakeResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A route's implementation: the call and the `:name` parameters of its pattern. */
export type RouteHandler = (
  call: RecordedCall,
  params: Record<string, string>,
) => FakeResponse | Promise<FakeResponse>;

/** Which requests a scripted failure applies to. */
export interface CallMatcher {
  method?: string;
  /** A substring of the path, or a pattern it must match. */
  path?: string | RegExp;
}

/** A scripted answer that replaces the next `times` matching requests (default once). */
export interface ScriptedFailure extends FakeResponse {
  times?: number;
}

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: RouteHandler;
}

interface PendingFailure {
  matcher: CallMatcher;
  failure: ScriptedFailure;
  remaining: number;
}

/** Decides whether a call may reach the routes; a response refuses it. */
export type Authorizer = (call: RecordedCall) => FakeResponse | null;

/**
 * A loopback HTTP server for fakes of SaaS APIs: JSON or form bodies in, JSON out, every call
 * recorded, routes by `:param` patterns, per-test scripted failures (401, 404, 429 with
 * `retry-after`, ...) answered before the routes, and an authorizer hook. An unrouted request
 * gets a 404 naming it, so a test that hits an endpoint the fake lacks fails loudly.
 */
export class LoopbackApi {
  /** Every request received, in order (scripted failures included). */
  readonly calls: RecordedCall[] = [];
  private readonly routes: Route[] = [];
  private readonly failures: PendingFailure[] = [];
  private authorizer: Authorizer = () => null;
  private server: Server | undefined;
  private port = 0;

  /** Adds a route; the first registered route that matches wins. */
  route(method: string, pattern: string, handler: RouteHandler): this {
    const names: string[] = [];
    const source = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:(\w+)/g, (_, name) => {
      names.push(String(name));
      return '([^/]+)';
    });
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), names, handler });
    return this;
  }

  /** Answers the next matching request(s) with `failure` instead of the route. */
  failNext(matcher: CallMatcher, failure: ScriptedFailure): this {
    this.failures.push({ matcher, failure, remaining: failure.times ?? 1 });
    return this;
  }

  /** Sets the check every call passes before the routes (after scripted failures). */
  authorize(authorizer: Authorizer): this {
    this.authorizer = authorizer;
    return this;
  }

  /** The recorded calls whose method and path match. */
  callsTo(matcher: CallMatcher): RecordedCall[] {
    return this.calls.filter((call) => matches(matcher, call));
  }

  /** Starts listening on 127.0.0.1 and a free port; returns the origin. */
  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.origin;
  }

  /** `http://127.0.0.1:<port>` once listening. */
  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Stops the server and drops open connections. */
  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Handles requests the JSON routes cannot (a git smart-HTTP stream): return true when the
   * request was answered. Subclasses override it; the default handles nothing.
   */
  protected handleRaw(_req: IncomingMessage, _res: ServerResponse): boolean {
    return false;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.handleRaw(req, res)) return;
    const call = await record(req);
    this.calls.push(call);
    send(res, await this.answer(call));
  }

  private async answer(call: RecordedCall): Promise<FakeResponse> {
    const scripted = this.takeFailure(call);
    if (scripted) return scripted;
    const refused = this.authorizer(call);
    if (refused) return refused;
    for (const route of this.routes) {
      if (route.method !== call.method) continue;
      const found = route.pattern.exec(call.path);
      if (!found) continue;
      const params: Record<string, string> = {};
      route.names.forEach((name, index) => {
        params[name] = decodeURIComponent(found[index + 1] ?? '');
      });
      return route.handler(call, params);
    }
    return { status: 404, body: { message: `fake: no route ${call.method} ${call.path}` } };
  }

  private takeFailure(call: RecordedCall): FakeResponse | undefined {
    const pending = this.failures.find((entry) => matches(entry.matcher, call));
    if (!pending) return undefined;
    pending.remaining -= 1;
    if (pending.remaining <= 0) this.failures.splice(this.failures.indexOf(pending), 1);
    return pending.failure;
  }
}

function matches(matcher: CallMatcher, call: RecordedCall): boolean {
  if (matcher.method && matcher.method !== call.method) return false;
  if (matcher.path === undefined) return true;
  return typeof matcher.path === 'string'
    ? call.path.includes(matcher.path)
    : matcher.path.test(call.path);
}

function send(res: ServerResponse, response: FakeResponse): void {
  const text = typeof response.body === 'string';
  const headers = {
    'content-type': text ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
    ...response.headers,
  };
  res.writeHead(response.status, headers);
  if (response.body === undefined || response.status === 204) res.end();
  else res.end(text ? (response.body as string) : JSON.stringify(response.body));
}

async function record(req: IncomingMessage): Promise<RecordedCall> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const rawBody = Buffer.concat(chunks).toString('utf8');
  const url = new URL(req.url ?? '/', 'http://fake');
  return {
    method: req.method ?? 'GET',
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: req.headers,
    body: parseBody(rawBody, String(req.headers['content-type'] ?? '')),
    rawBody,
  };
}

function parseBody(raw: string, contentType: string): Record<string, unknown> | null {
  if (raw === '') return null;
  if (contentType.includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(raw));
  }
  try {
    const parsed: unknown = JSON.parse(raw);
    return parsed !== null && typeof parsed === 'object'
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The bearer token of a call, if it has one. */
export function bearerToken(call: RecordedCall): string | undefined {
  return /^(?:Bearer|token) (\S+)$/i.exec(String(call.headers.authorization ?? ''))?.[1];
}

/** A `429` answer with a `retry-after` header, in the given body shape. */
export function rateLimited(retryAfterSeconds: number, body: unknown): ScriptedFailure {
  return { status: 429, headers: { 'retry-after': String(retryAfterSeconds) }, body };
}

/** A body field as text: strings and numbers as they are, anything else empty. */
export function textOf(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}
