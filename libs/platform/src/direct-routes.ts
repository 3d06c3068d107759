import { AppError } from '@caravel/errors';
import { Injectable, Logger } from '@nestjs/common';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { httpAnswerOfError, type HttpAnswer } from './http-answer.js';
import { countHttpAnswer } from './http-metrics.js';
import { traceHttpRequest } from './http-tracing.js';

/** What a direct route answers; `dropRequest` closes the connection once the answer is out. */
export interface DirectAnswer extends HttpAnswer {
  dropRequest?: boolean;
}

/** A direct route's handler: the request in (its body unread), the answer out. */
export type DirectHandler = (request: IncomingMessage) => Promise<DirectAnswer>;

interface DirectRoute {
  /** The route's label in metrics and traces: the path it was registered under. */
  path: string;
  handle: DirectHandler;
}

/**
 * Routes served straight from Node's HTTP server, ahead of the framework's router: the ones that
 * take load from outside at the sender's pace (webhooks). A route here costs a map look-up where
 * the framework's costs its middleware chain, router, pipes and response helpers (a GitHub
 * delivery's process CPU halves: `docs/performance.md`). They keep what every route has: the
 * HTTP metrics, a server span when traces are on, and the coded error answer of
 * {@link httpAnswerOfError}. A path matches as Express matches one: whatever the case, with or
 * without a trailing slash, a query string ignored. Anything else goes to the framework.
 */
@Injectable()
export class DirectRoutes {
  private readonly routes = new Map<string, DirectRoute>();

  /** Serves `POST <path>` with `handle`. */
  post(path: string, handle: DirectHandler): void {
    const key = keyOf('POST', path);
    if (this.routes.has(key)) throw new Error(`a direct route POST ${path} is already served`);
    this.routes.set(key, { path, handle });
  }

  get size(): number {
    return this.routes.size;
  }

  /** The route a request is for, if it is a direct one. */
  match(method: string | undefined, url: string | undefined): DirectRoute | undefined {
    if (this.routes.size === 0 || method === undefined || url === undefined) return undefined;
    const query = url.indexOf('?');
    return this.routes.get(keyOf(method, query < 0 ? url : url.slice(0, query)));
  }
}

function keyOf(method: string, path: string): string {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return `${method.toUpperCase()} ${trimmed.toLowerCase()}`;
}

const log = new Logger('DirectRoutes');

/**
 * Puts `routes` ahead of the framework on `server`: a request for one of them is served here, any
 * other goes to the listeners the server had (the framework's). Install before `listen`.
 */
export function serveDirectRoutes(server: Server, routes: DirectRoutes, traced: boolean): void {
  if (routes.size === 0) return;
  const framework = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const route = routes.match(request.method, request.url);
    if (!route) {
      for (const listener of framework) listener.call(server, request, response);
      return;
    }
    const path = () => route.path;
    countHttpAnswer(request, response, path);
    const serve = () => void serveOne(route, request, response);
    if (traced) traceHttpRequest(request, response, path, serve);
    else serve();
  });
}

async function serveOne(
  route: DirectRoute,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  let answer: DirectAnswer;
  try {
    answer = await route.handle(request);
  } catch (error) {
    answer = httpAnswerOfError(error, log);
  }
  const body = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    ...answer.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
  });
  response.end(body);
  // A body left unread (refused, or the handler failed first) would stall a kept-alive connection.
  if (answer.dropRequest || !request.complete) request.destroy();
}

/**
 * How many bytes the bodies being read may hold at once, across requests: a route that must read
 * a large body before it can tell whether the sender is genuine (a webhook's signature covers its
 * bytes) shares one, so a flood of large or slowly sent bodies is refused instead of filling memory.
 */
export class BodyBudget {
  private held = 0;

  constructor(readonly maxBytes: number) {}

  get heldBytes(): number {
    return this.held;
  }

  /** Holds `bytes` more; false, holding nothing, when that would pass the budget. */
  hold(bytes: number): boolean {
    if (this.held + bytes > this.maxBytes) return false;
    this.held += bytes;
    return true;
  }

  release(bytes: number): void {
    this.held = Math.max(0, this.held - bytes);
  }
}

/**
 * Reads a request's whole body, at most `maxBytes` of it: `undefined` once it is larger (the rest
 * is left unread: answer with `dropRequest`). A body that fails midway rejects with a coded
 * `BAD_REQUEST`, and so does one whose sender went away before its end. With a `budget`, the
 * bytes read are held in it until the body ends (read, refused or failed); a chunk the budget
 * cannot hold rejects with `RATE_LIMITED` (429, the rest unread: the answer drops the request).
 */
export function readRequestBody(
  request: IncomingMessage,
  maxBytes: number,
  budget?: BodyBudget,
): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let reading = true;
    // The error listener stays: a request aborted after its body was refused must not throw.
    const stop = () => {
      if (!reading) return;
      reading = false;
      request.off('data', onData).off('end', onEnd);
      budget?.release(size);
    };
    const onData = (chunk: Buffer) => {
      if (budget && !budget.hold(chunk.length)) {
        stop();
        request.pause();
        reject(
          new AppError('RATE_LIMITED', 'too many request bodies are being read: retry shortly', {
            details: { retryAfterSeconds: 5 },
          }),
        );
        return;
      }
      size += chunk.length;
      if (size <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      stop();
      request.pause();
      resolve(undefined);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error?: Error) => {
      if (!reading) return;
      stop();
      reject(new AppError('BAD_REQUEST', 'the request body could not be read', { cause: error }));
    };
    // A sender gone midway closes the request with neither `end` nor `error`.
    request
      .on('data', onData)
      .once('end', onEnd)
      .once('error', onError)
      .once('close', () => onError());
  });
}
