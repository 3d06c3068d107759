import type { z } from 'zod';
import { sandboxError } from '../../sandbox.errors.js';
import { errorForStatus, malformedResponse, unreachable } from './http-error-mapping.js';

/** How a remote provider reaches its sandbox service. */
export interface RemoteConnectionOptions {
  /** The API root, e.g. `https://sandboxes.example.com/api`; paths are appended to it. */
  readonly baseUrl: string;
  /** The service's API key; sent on every request, never logged or put in an error. */
  readonly apiKey: string;
  /**
   * The header carrying the key (default `authorization`, sent as `Bearer <key>`); any other
   * name (e.g. `x-api-key`) carries the bare key.
   */
  readonly apiKeyHeader?: string;
  /** Per-request time limit for everything but exec (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Extra attempts for idempotent requests (GET, PUT, DELETE) after a network error or 502/503/504 (default 2). */
  readonly retries?: number;
  /** Wait before the first retry, doubled for each later one (default 200 ms). */
  readonly retryDelayMs?: number;
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
}

/** One call to the service. */
export interface RemoteRequest<T> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>;
  readonly body?: unknown;
  /** Validates a 2xx JSON body; absent when the call answers no body (204). */
  readonly schema?: z.ZodType<T>;
  /** Overrides `requestTimeoutMs` (exec waits for the command). */
  readonly timeoutMs?: number;
}

const DEFAULTS = {
  apiKeyHeader: 'authorization',
  requestTimeoutMs: 30_000,
  retries: 2,
  retryDelayMs: 200,
};
const RETRIED_STATUSES = new Set([502, 503, 504]);

/** The outcome of one attempt: a response, or a failure that may be retried. */
type Attempt = { response: Response; text: string } | { failure: Error; retry: boolean };

/**
 * JSON over HTTP to a remote sandbox service, the transport concerns done once: base URL, API
 * key header, timeouts, retries for idempotent calls only (a repeated POST could run a command
 * twice), and HTTP failures mapped to coded sandbox errors with `details.reason`.
 */
export class RemoteHttpClient {
  private readonly settings: Required<Omit<RemoteConnectionOptions, 'fetch'>>;
  private readonly fetch: typeof fetch;

  constructor(options: RemoteConnectionOptions) {
    let base: URL;
    try {
      base = new URL(options.baseUrl);
    } catch {
      throw sandboxError(
        'invalid_input',
        `remote sandbox baseUrl is not a URL: ${options.baseUrl}`,
      );
    }
    if (!options.apiKey) throw sandboxError('invalid_input', 'remote sandbox apiKey is empty');
    this.settings = { ...DEFAULTS, ...options, baseUrl: base.href.replace(/\/+$/, '') };
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Sends the request (retrying when safe) and returns the validated body. */
  async request<T>(request: RemoteRequest<T>): Promise<T> {
    const idempotent = request.method !== 'POST';
    const attempts = idempotent ? this.settings.retries + 1 : 1;
    let outcome: Attempt = { failure: new Error('no attempt'), retry: false };
    for (let attempt = 0; attempt < attempts; attempt += 1) {
      if (attempt > 0) await delay(this.settings.retryDelayMs * 2 ** (attempt - 1));
      outcome = await this.attempt(request);
      if ('response' in outcome || !outcome.retry) break;
    }
    if ('failure' in outcome) throw outcome.failure;
    return this.parse(request, outcome.response, outcome.text);
  }

  private async attempt<T>(request: RemoteRequest<T>): Promise<Attempt> {
    const timeoutMs = request.timeoutMs ?? this.settings.requestTimeoutMs;
    const where = `${request.method} ${request.path}`;
    let response: Response;
    let text: string;
    try {
      response = await this.fetch(this.url(request), {
        method: request.method,
        headers: this.headers(request.body !== undefined),
        signal: AbortSignal.timeout(timeoutMs),
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      });
      text = await response.text();
    } catch (error) {
      return { failure: unreachable(this.settings.baseUrl, where, error, timeoutMs), retry: true };
    }
    if (response.ok) return { response, text };
    return {
      failure: errorForStatus(where, response.status, text),
      retry: RETRIED_STATUSES.has(response.status),
    };
  }

  private parse<T>(request: RemoteRequest<T>, response: Response, text: string): T {
    const where = `${request.method} ${request.path}`;
    if (!request.schema) return undefined as T;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw malformedResponse(where, response.status, `not JSON: ${text.slice(0, 120)}`);
    }
    const parsed = request.schema.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue?.path.length ? issue.path.join('.') : 'body';
      throw malformedResponse(where, response.status, `${at}: ${issue?.message ?? 'invalid'}`);
    }
    return parsed.data;
  }

  private url(request: RemoteRequest<unknown>): string {
    const url = new URL(`${this.settings.baseUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.href;
  }

  private headers(hasBody: boolean): Record<string, string> {
    const name = this.settings.apiKeyHeader.toLowerCase();
    const key = name === 'authorization' ? `Bearer ${this.settings.apiKey}` : this.settings.apiKey;
    return {
      accept: 'application/json',
      [name]: key,
      ...(hasBody ? { 'content-type': 'application/json' } : {}),
    };
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
