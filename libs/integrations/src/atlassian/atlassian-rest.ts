import { AppError, isAppError } from '@caravel/errors';
import { notConfigured, retryAfterSeconds, serviceError } from '../http/service-errors.js';
import { retryPolicy, withRateLimitRetry, type RetryPolicy } from '../http/rate-limit-retry.js';

/** Settings of {@link AtlassianRest}: a site and a service account (email + API token). */
export interface AtlassianRestOptions {
  /** `Jira` or `Confluence`, for messages. */
  service: string;
  /** The site root, e.g. `https://acme.atlassian.net`. */
  baseUrl: string | undefined;
  email: string | undefined;
  apiToken: string | undefined;
  /** The settings to name when credentials are missing. */
  settings: string;
  retry?: Partial<RetryPolicy>;
}

/**
 * A small REST client for Atlassian Cloud (Jira, Confluence) with Basic auth (service account
 * email + API token), JSON in and out, coded errors (with Atlassian's `errorMessages` or
 * `message`), and rate limits waited out once. Without a site or credentials every call fails
 * with a clean `PRECONDITION_FAILED`.
 */
export class AtlassianRest {
  private readonly policy: RetryPolicy;

  constructor(private readonly options: AtlassianRestOptions) {
    this.policy = retryPolicy(options.retry);
  }

  /** Sends a request; resolves with the parsed JSON body (undefined for 204). */
  async send<T>(action: string, method: string, path: string, body?: unknown): Promise<T> {
    const { baseUrl, email, apiToken, service, settings } = this.options;
    if (!baseUrl || !email || !apiToken) throw notConfigured(service, settings);
    const authorization = `Basic ${Buffer.from(`${email}:${apiToken}`).toString('base64')}`;
    return withRateLimitRetry(this.policy, async () => {
      let response: Response;
      try {
        response = await fetch(new URL(path, baseUrl), {
          method,
          headers: {
            authorization,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      } catch (error) {
        throw serviceError({ service, action, status: 0, message: describe(error) });
      }
      return this.read<T>(response, action);
    });
  }

  private async read<T>(response: Response, action: string): Promise<T> {
    const text = await response.text();
    const json = parse(text);
    if (response.ok) return (text === '' ? undefined : json) as T;
    const wait = retryAfterSeconds(response.headers.get('retry-after'));
    const message = messageOf(json);
    throw serviceError({
      service: this.options.service,
      action,
      status: response.status,
      ...(message ? { message } : {}),
      ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
    });
  }
}

function describe(error: unknown): string {
  if (isAppError(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function parse(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

function messageOf(json: unknown): string | undefined {
  if (!json || typeof json !== 'object') return undefined;
  const body = json as { errorMessages?: unknown; message?: unknown; errors?: unknown };
  const list = Array.isArray(body.errorMessages) ? body.errorMessages.map(String) : [];
  if (body.errors && typeof body.errors === 'object') {
    for (const [field, problem] of Object.entries(body.errors))
      list.push(`${field}: ${String(problem)}`);
  }
  if (typeof body.message === 'string') list.push(body.message);
  return list.length > 0 ? list.join('; ') : undefined;
}

/** A coded error for an answer missing what the API promised. */
export function unexpectedAnswer(service: string, action: string): AppError {
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `${service} answered ${action} without the expected fields`,
    {
      retryable: false,
    },
  );
}
