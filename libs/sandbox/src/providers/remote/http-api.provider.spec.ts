import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { sandboxErrorReason } from '../../sandbox.errors.js';
import { HttpApiSandboxProvider } from './http-api.provider.js';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

const servers: Server[] = [];
const API_KEY = 'k-secret-123';

/** A loopback server answering each request with `handler`; records `METHOD /path`. */
async function scripted(handler: Handler): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((request, response) => {
    seen.push(`${request.method ?? '?'} ${request.url ?? ''}`);
    request.resume();
    request.on('end', () => handler(request, response));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function failure(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw new Error(`not a coded error: ${String(error)}`);
  }
  throw new Error('resolved');
}

const session = { id: 'sbx-1', sessionId: 's-1', workdir: '/w', defaultTimeoutMs: 1000 };

function provider(url: string, extra: { apiKeyHeader?: string; requestTimeoutMs?: number } = {}) {
  return new HttpApiSandboxProvider({ baseUrl: url, apiKey: API_KEY, retryDelayMs: 1, ...extra });
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('HttpApiSandboxProvider over HTTP failures', () => {
  it('reports a service that is down as provider_unavailable, naming the address', async () => {
    const { url } = await scripted(() => undefined);
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const error = await failure(provider(url).connect('sbx-1'));
    expect(sandboxErrorReason(error)).toBe('provider_unavailable');
    expect(error.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(error.message).toContain(`${url} is unreachable`);
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('maps a bare 404 to sandbox_not_found and a named reason to that reason', async () => {
    const { url } = await scripted((request, response) =>
      request.url?.includes('/files/')
        ? json(response, 404, { error: { reason: 'file_not_found', message: 'no a.txt' } })
        : json(response, 404, { error: { message: 'unknown sandbox' } }),
    );
    expect(sandboxErrorReason(await failure(provider(url).connect('nope')))).toBe(
      'sandbox_not_found',
    );
    const { url: ok } = await scripted((request, response) =>
      request.url?.includes('/files/')
        ? json(response, 404, { error: { reason: 'file_not_found', message: 'no a.txt' } })
        : json(response, 201, session),
    );
    const box = await provider(ok).connect('sbx-1');
    const error = await failure(box.readFile('a.txt'));
    expect(sandboxErrorReason(error)).toBe('file_not_found');
    expect(error.message).toContain('no a.txt');
  });

  it('reports a refused API key as provider_auth_failed without echoing the key', async () => {
    const { url } = await scripted((_request, response) => json(response, 401, { error: 'no' }));
    const error = await failure(provider(url).create());
    expect(sandboxErrorReason(error)).toBe('provider_auth_failed');
    expect(error.message).toContain('refused the API key (HTTP 401');
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(
      API_KEY,
    );
  });

  it('reports a malformed answer clearly instead of crashing', async () => {
    const { url } = await scripted((request, response) =>
      request.url?.endsWith('/exec')
        ? json(response, 200, { exitCode: 'zero', output: 'x' })
        : response.writeHead(201).end('<html>proxy error</html>'),
    );
    const notJson = await failure(provider(url).connect('sbx-1'));
    expect(sandboxErrorReason(notJson)).toBe('provider_unavailable');
    expect(notJson.details['malformed']).toBe(true);
    expect(notJson.message).toContain('not JSON: <html>proxy error</html>');

    const { url: shape } = await scripted((request, response) =>
      request.url?.endsWith('/exec')
        ? json(response, 200, { exitCode: 'zero', output: 'x' })
        : json(response, 201, session),
    );
    const box = await provider(shape).connect('sbx-1');
    const wrong = await failure(box.exec('true'));
    expect(wrong.details['malformed']).toBe(true);
    expect(wrong.message).toContain('exitCode');
  });

  it('retries idempotent calls after a 503 but never repeats a POST', async () => {
    let deletes = 0;
    const { url, seen } = await scripted((request, response) => {
      if (request.method === 'DELETE' && (deletes += 1) < 3) json(response, 503, {});
      else if (request.method === 'DELETE') response.writeHead(204).end();
      else json(response, 503, { error: { message: 'busy' } });
    });
    await provider(url).delete('sbx-1');
    expect(seen.filter((line) => line.startsWith('DELETE'))).toHaveLength(3);
    expect(sandboxErrorReason(await failure(provider(url).create()))).toBe('provider_unavailable');
    expect(seen.filter((line) => line.startsWith('POST'))).toHaveLength(1);
  });

  it('deletes a created sandbox whose first session cannot be opened', async () => {
    const { url, seen } = await scripted((request, response) => {
      if (request.method === 'DELETE') response.writeHead(204).end();
      else if (request.url?.endsWith('/sessions')) json(response, 500, { error: {} });
      else json(response, 201, { id: 'sbx-9', workdir: '/w', defaultTimeoutMs: 1000 });
    });
    expect(sandboxErrorReason(await failure(provider(url).create()))).toBe('provider_unavailable');
    expect(seen).toEqual([
      'POST /v1/sandboxes',
      'POST /v1/sandboxes/sbx-9/sessions',
      'DELETE /v1/sandboxes/sbx-9',
    ]);
  });

  it('gives up on a service that never answers, after the request time limit', async () => {
    const { url } = await scripted(() => undefined);
    const error = await failure(provider(url, { requestTimeoutMs: 300 }).connect('sbx-1'));
    expect(sandboxErrorReason(error)).toBe('provider_unavailable');
    expect(error.message).toContain('no answer within 300 ms');
  }, 30_000);

  it('sends the key as a bearer token, or bare in a named header', async () => {
    const headers: IncomingMessage['headers'][] = [];
    const { url } = await scripted((request, response) => {
      headers.push(request.headers);
      response.writeHead(204).end();
    });
    await provider(url).delete('a');
    await provider(url, { apiKeyHeader: 'X-API-Key' }).delete('b');
    expect(headers[0]?.authorization).toBe(`Bearer ${API_KEY}`);
    expect(headers[1]?.['x-api-key']).toBe(API_KEY);
    expect(headers[1]?.authorization).toBeUndefined();
  });

  it('refuses a base URL that is not a URL', () => {
    expect(() => provider('not a url')).toThrow('baseUrl is not a URL');
  });
});
