import { AppError, isAppError, untilAborted } from '@caravel/errors';
import type { HttpRequestSpec } from '@caravel/tools';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readCapped } from './capped-body.js';
import { resolvePublicHost, systemResolver, type HostResolver } from './guarded-resolver.js';
import { HostAllowlist } from './host-allowlist.js';

/** Limits and reach of a {@link SafeHttpClient}. */
export interface SafeHttpOptions {
  /** Internal hosts that may be reached (default none). */
  allowlist?: HostAllowlist;
  /** The whole exchange, redirects and body included (default 20 s). */
  timeoutMs?: number;
  /** Bytes of (decompressed) body kept; the rest is cut off (default 2 MiB). */
  maxResponseBytes?: number;
  /** Redirects followed before giving up (default 5). */
  maxRedirects?: number;
  /** How host names are resolved (default the system resolver); tests inject one. */
  resolve?: HostResolver;
  userAgent?: string;
}

/** One request (the web port's request spec): only `http:` and `https:` URLs. */
export type SafeRequest = HttpRequestSpec;

/** The final answer, after redirects; `body` holds at most `maxResponseBytes`. */
export interface SafeResponse {
  status: number;
  headers: Record<string, string>;
  /** The URL that answered, after redirects. */
  url: string;
  body: Buffer;
  /** True when the body was longer than `maxResponseBytes` and was cut. */
  truncated: boolean;
  redirects: number;
}

export const WEB_DEFAULTS = {
  timeoutMs: 20_000,
  maxResponseBytes: 2 * 1024 * 1024,
  maxRedirects: 5,
  userAgent: 'Caravel/0.1 (+https://caravel.dev/bot)',
} as const;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Headers the caller may not set: framing, routing and encoding are the client's business. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'accept-encoding',
  'proxy-authorization',
  'proxy-connection',
]);
/** Credentials that do not follow a redirect to another origin. */
const ORIGIN_BOUND_HEADERS = new Set(['authorization', 'cookie']);

/**
 * Outbound HTTP for the agent's web tools, with SSRF protection: `http`/`https` only; every hop's
 * host is resolved once and each of its addresses checked (public, or an allowlisted host), and
 * the connection is pinned to those addresses; redirects are followed by hand, each re-checked,
 * at most `maxRedirects`; the body is decompressed and cut at `maxResponseBytes`; the whole
 * exchange has one deadline. Failures are coded `AppError`s.
 */
export class SafeHttpClient {
  private readonly allowlist: HostAllowlist;
  private readonly limits: Required<Omit<SafeHttpOptions, 'allowlist' | 'resolve'>>;
  private readonly resolve: HostResolver;

  constructor(options: SafeHttpOptions = {}) {
    this.allowlist = options.allowlist ?? new HostAllowlist([]);
    this.resolve = options.resolve ?? systemResolver;
    this.limits = {
      timeoutMs: options.timeoutMs ?? WEB_DEFAULTS.timeoutMs,
      maxResponseBytes: options.maxResponseBytes ?? WEB_DEFAULTS.maxResponseBytes,
      maxRedirects: options.maxRedirects ?? WEB_DEFAULTS.maxRedirects,
      userAgent: options.userAgent ?? WEB_DEFAULTS.userAgent,
    };
  }

  get maxResponseBytes(): number {
    return this.limits.maxResponseBytes;
  }

  async send(request: SafeRequest): Promise<SafeResponse> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.limits.timeoutMs);
    try {
      return await this.follow(request, deadline.signal);
    } catch (error) {
      if (deadline.signal.aborted) {
        throw new AppError(
          'TIMEOUT',
          `${request.method} ${request.url} took longer than ${this.limits.timeoutMs} ms.`,
          { details: { url: request.url, timeoutMs: this.limits.timeoutMs } },
        );
      }
      throw codeTransportError(error, request.url);
    } finally {
      clearTimeout(timer);
    }
  }

  private async follow(first: SafeRequest, signal: AbortSignal): Promise<SafeResponse> {
    let hop = { ...first, url: httpUrl(first.url, 'URL') };
    for (let redirects = 0; ; redirects += 1) {
      const response = await this.exchange(hop, signal);
      const location = response.headers.location;
      if (!REDIRECTS.has(response.statusCode ?? 0) || !location) {
        const { body, truncated } = await readCapped(response, this.limits.maxResponseBytes);
        return {
          status: response.statusCode ?? 0,
          headers: flatHeaders(response),
          url: hop.url.href,
          body,
          truncated,
          redirects,
        };
      }
      response.destroy();
      if (redirects >= this.limits.maxRedirects) {
        throw new AppError(
          'BAD_REQUEST',
          `${first.url} redirected more than ${this.limits.maxRedirects} times; last to ${location}.`,
          { details: { url: first.url } },
        );
      }
      hop = nextHop(hop, response.statusCode ?? 0, location);
    }
  }

  private async exchange(
    hop: Omit<SafeRequest, 'url'> & { url: URL },
    signal: AbortSignal,
  ): Promise<IncomingMessage> {
    // A resolver that hangs must not outlive the deadline.
    const pinned = await untilAborted(
      resolvePublicHost(hop.url, this.allowlist, this.resolve),
      signal,
      () => new Error('aborted'),
    );
    const send = hop.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const headers: OutgoingHttpHeaders = {
      'user-agent': this.limits.userAgent,
      accept: '*/*',
      ...callerHeaders(hop.headers),
      'accept-encoding': 'gzip, deflate, br',
      ...(hop.body === undefined ? {} : { 'content-length': Buffer.byteLength(hop.body) }),
    };
    return new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = send(hop.url, {
        method: hop.method,
        headers,
        agent: false,
        signal,
        lookup: pinnedLookup(pinned.addresses),
      });
      outgoing.once('response', resolve);
      outgoing.once('error', reject);
      outgoing.end(hop.body);
    });
  }
}

/** A lookup that answers with the checked addresses only: the connection cannot go elsewhere. */
function pinnedLookup(addresses: LookupAddress[]) {
  return (
    _hostname: string,
    options: LookupOptions,
    callback: (error: null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const first = addresses[0] as LookupAddress;
    if (options.all) callback(null, addresses);
    else callback(null, first.address, first.family);
  };
}

function httpUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AppError('BAD_REQUEST', `${what} ${text} is not an absolute URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AppError(
      'BAD_REQUEST',
      `${what} ${url.href} uses ${url.protocol}; only http and https can be fetched.`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new AppError('BAD_REQUEST', `${what} ${url.origin}: credentials in URLs are refused.`);
  }
  return url;
}

type Hop = Omit<SafeRequest, 'url'> & { url: URL };

/** The request a redirect asks for (fetch's rules for the method, the body and credentials). */
function nextHop(hop: Hop, status: number, location: string): Hop {
  const url = httpUrl(new URL(location, hop.url).href, `The redirect from ${hop.url.href} to`);
  const toGet =
    (status === 303 && hop.method !== 'HEAD') ||
    ((status === 301 || status === 302) && hop.method === 'POST');
  const sameOrigin = url.origin === hop.url.origin;
  const headers = Object.fromEntries(
    Object.entries(hop.headers ?? {}).filter(([name]) => {
      const lower = name.toLowerCase();
      if (!sameOrigin && ORIGIN_BOUND_HEADERS.has(lower)) return false;
      return !(toGet && lower.startsWith('content-'));
    }),
  );
  return {
    method: toGet ? 'GET' : hop.method,
    url,
    headers,
    ...(toGet || hop.body === undefined ? {} : { body: hop.body }),
  };
}

function callerHeaders(headers: Record<string, string> | undefined): OutgoingHttpHeaders {
  return Object.fromEntries(
    Object.entries(headers ?? {}).filter(([name]) => !RESERVED_HEADERS.has(name.toLowerCase())),
  );
}

function flatHeaders(response: IncomingMessage): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function codeTransportError(error: unknown, url: string): AppError {
  if (isAppError(error)) return error;
  const code = (error as NodeJS.ErrnoException).code;
  const reason = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN') {
    return new AppError('BAD_REQUEST', `Invalid request for ${url}: ${reason}`);
  }
  return new AppError('DEPENDENCY_UNAVAILABLE', `${url} could not be reached: ${reason}`, {
    details: { url, ...(code ? { cause: code } : {}) },
  });
}
