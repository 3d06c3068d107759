import { isAppError, type AppError } from '@caravel/errors';
import { LinearClient, LinearErrorType, parseLinearError } from '@linear/sdk';
import { notConfigured, serviceError } from '../http/service-errors.js';
import { retryPolicy, withRateLimitRetry, type RetryPolicy } from '../http/rate-limit-retry.js';

/** Settings of {@link LinearApi}. */
export interface LinearApiOptions {
  /** A Linear API key or OAuth access token; absent means Linear is not configured. */
  apiKey: string | undefined;
  /** The GraphQL endpoint (default Linear's own). */
  apiUrl?: string;
  retry?: Partial<RetryPolicy>;
}

/**
 * The Linear SDK behind Caravel's error codes: `sdk` calls use its typed mutations, `query` sends
 * a GraphQL document through the SDK's own transport (for reads that need nested fields in one
 * round trip). Short rate limits are waited out once; no key means `PRECONDITION_FAILED`.
 */
export class LinearApi {
  private readonly client: LinearClient | undefined;
  private readonly policy: RetryPolicy;

  constructor(options: LinearApiOptions) {
    this.policy = retryPolicy(options.retry);
    this.client = options.apiKey
      ? new LinearClient({
          apiKey: options.apiKey,
          ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}),
        })
      : undefined;
  }

  /** Runs an SDK call; `action` names it in errors. */
  sdk<T>(action: string, run: (client: LinearClient) => Promise<T>): Promise<T> {
    const client = this.client;
    if (!client) return Promise.reject(notConfigured('Linear', 'LINEAR_API_KEY'));
    return withRateLimitRetry(this.policy, async () => {
      try {
        return await run(client);
      } catch (error) {
        throw codeLinearError(error, action);
      }
    });
  }

  /** Sends a GraphQL document through the SDK's client and returns its `data`. */
  query<T>(action: string, document: string, variables: Record<string, unknown>): Promise<T> {
    return this.sdk(action, async (client) => {
      try {
        return await client.client.request<T, Record<string, unknown>>(document, variables);
      } catch (error) {
        throw parseLinearError(error as Parameters<typeof parseLinearError>[0]);
      }
    });
  }
}

interface LinearFailure {
  type?: string;
  status?: number;
  message?: string;
  retryAfter?: number;
  errors?: { message?: string }[];
}

/** Codes a Linear SDK failure by its error type. */
export function codeLinearError(error: unknown, action: string): AppError {
  if (isAppError(error)) return error;
  const failure = (error ?? {}) as LinearFailure;
  const said = failure.errors?.[0]?.message ?? failure.message;
  const base = { service: 'Linear', action, ...(said ? { message: said } : {}) };
  const retry = failure.retryAfter === undefined ? {} : { retryAfterSeconds: failure.retryAfter };
  return serviceError({ ...base, ...retry, status: statusOf(failure, said ?? '') });
}

function statusOf(failure: LinearFailure, message: string): number {
  switch (failure.type) {
    case LinearErrorType.AuthenticationError:
      return 401;
    case LinearErrorType.Forbidden:
    case LinearErrorType.FeatureNotAccessible:
      return 403;
    case LinearErrorType.Ratelimited:
    case LinearErrorType.UsageLimitExceeded:
      return 429;
    case LinearErrorType.InvalidInput:
    case LinearErrorType.UserError:
    case LinearErrorType.GraphqlError:
      return /not found/i.test(message) ? 404 : 400;
    case undefined:
    default:
      return failure.status && failure.status >= 400 ? failure.status : 503;
  }
}
