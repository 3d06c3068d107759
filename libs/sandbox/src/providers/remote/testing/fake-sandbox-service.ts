import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError, httpStatusFor } from '@caravel/errors';
import { LocalSandboxProvider } from '../../local.provider.js';
import type { SessionTiming } from '../../session-timing.js';
import { sandboxError } from '../../../sandbox.errors.js';
import { HTTP_API_PREFIX } from '../http-api.schemas.js';
import { SandboxServiceRoutes, type RouteAnswer } from './fake-service-routes.js';

/** Settings of the loopback fake of the sandbox HTTP API. */
export interface FakeSandboxServiceOptions {
  /** The only key it accepts, as `authorization: Bearer <key>`. */
  readonly apiKey: string;
  /** Where its (local-provider) sandboxes live. */
  readonly rootDir: string;
  readonly timing?: SessionTiming;
}

/** A running fake: its base URL and how to stop it. */
export interface FakeSandboxService {
  readonly url: string;
  /** Requests answered so far, as `METHOD /path` (query dropped). */
  readonly requests: readonly string[];
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/**
 * A real HTTP server on 127.0.0.1 implementing the sandbox HTTP API v1 over the `local`
 * provider: every session is a real persistent bash session on disk, so a remote provider
 * talking to it is exercised end to end (timeouts, output caps, file operations, errors).
 */
export async function startFakeSandboxService(
  options: FakeSandboxServiceOptions,
): Promise<FakeSandboxService> {
  const local = new LocalSandboxProvider({
    rootDir: options.rootDir,
    logger: { warn: () => undefined },
    ...(options.timing ? { timing: options.timing } : {}),
  });
  const routes = new SandboxServiceRoutes(local, () => randomUUID(), options.rootDir);
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(`${request.method ?? '?'} ${(request.url ?? '').split('?')[0]}`);
    void handle(request, response, options.apiKey, routes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: async () => {
      await routes.closeAll();
      await closeServer(server);
    },
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  apiKey: string,
  routes: SandboxServiceRoutes,
): Promise<void> {
  try {
    if (request.headers.authorization !== `Bearer ${apiKey}`) {
      // A real service names no library reason: the client must map the bare status.
      send(response, 401, { error: { message: 'invalid API key' } });
      return;
    }
    const url = new URL(request.url ?? '/', 'http://fake');
    if (!url.pathname.startsWith(HTTP_API_PREFIX)) {
      throw sandboxError('invalid_input', `no route ${url.pathname}`);
    }
    const segments = url.pathname
      .slice(HTTP_API_PREFIX.length)
      .split('/')
      .filter(Boolean)
      .map(decodeURIComponent);
    const body = await readJson(request);
    const answer: RouteAnswer = await routes.dispatch(request.method ?? 'GET', segments, {
      query: Object.fromEntries(url.searchParams),
      body,
    });
    send(response, answer.status, answer.body);
  } catch (error) {
    const status = error instanceof AppError ? httpStatusFor(error.code) : 500;
    const reason = error instanceof AppError ? error.details['reason'] : undefined;
    const message = error instanceof Error ? error.message : String(error);
    send(response, status, { error: { ...(reason ? { reason } : {}), message } });
  }
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw sandboxError('invalid_input', 'request body too large');
    chunks.push(chunk);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw sandboxError('invalid_input', 'request body is not JSON');
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  const text = JSON.stringify(body);
  response
    .writeHead(status, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    })
    .end(text);
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
