import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { OutgoingHttpHeaders } from 'node:http';

/** Headers that belong to one hop (or carry credentials the sandbox must not choose). */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'expect',
  'host',
]);

/**
 * The request's headers minus hop-by-hop ones, with `authorization` replaced when given (a
 * string), dropped (`null`), or left as the sandbox sent it (`undefined`).
 */
export function outgoingHeaders(
  incoming: IncomingMessage['headers'],
  target: URL,
  authorization: string | null | undefined,
): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const named = (incoming['connection'] ?? '').split(',').map((name) => name.trim().toLowerCase());
  for (const [name, value] of Object.entries(incoming)) {
    if (value === undefined || HOP_HEADERS.has(name) || named.includes(name)) continue;
    if (authorization !== undefined && name === 'authorization') continue;
    headers[name] = value;
  }
  headers['host'] = target.host;
  if (typeof authorization === 'string') headers['authorization'] = authorization;
  return headers;
}

/** Answers a request with a short text body and closes the exchange. */
export function answerText(response: ServerResponse, status: number, text: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  response.end(text);
}

/**
 * Streams one request to `target` and the answer back. `authorization`, a string, replaces any
 * Authorization header the sandbox sent, `null` drops it; otherwise the request's own headers
 * pass unchanged.
 */
export function forwardRequest(
  incoming: IncomingMessage,
  response: ServerResponse,
  target: URL,
  authorization: string | null | undefined,
): void {
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  const upstream = send(target, {
    method: incoming.method ?? 'GET',
    headers: outgoingHeaders(incoming.headers, target, authorization),
  });
  upstream.on('response', (answer) => {
    const headers: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
    }
    response.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
    answer.pipe(response);
  });
  upstream.on('error', (error) => {
    answerText(response, 502, `caravel egress proxy: ${target.host} failed: ${error.message}\n`);
  });
  incoming.on('aborted', () => upstream.destroy());
  incoming.pipe(upstream);
}
