import { isAppError, type AppError } from '@caravel/errors';
import type { LinearClient, LinearErrorType } from '@linear/sdk';
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
  private readonly policy: RetryPolicy;
  /** The SDK (3 MB of JavaScript) is loaded at the first call, not by every process at start. */
  private linear: Promise<Linear> | undefined;

  constructor(private readonly options: LinearApiOptions) {
    this.policy = retryPolicy(options.retry);
  }

  /** Runs an SDK call; `action` names it in errors. */
  sdk<T>(action: string, run: (client: LinearClient) => Promise<T>): Promise<T> {
    return this.withLinear(action, ({ client }) => run(client));
  }

  /** Sends a GraphQL document through the SDK's client and returns its `data`. */
  query<T>(action: string, document: string, variables: Record<string, unknown>): Promise<T> {
    return this.withLinear(action, async ({ client, parseError }) => {
      try {
        return await client.client.request<T, Record<string, unknown>>(document, variables);
      } catch (error) {
        throw parseError(error);
      }
    });
  }

  private withLinear<T>(action: string, run: (linear: Linear) => Promise<T>): Promise<T> {
    const { apiKey, apiUrl } = this.options;
    if (!apiKey) return Promise.reject(notConfigured('Linear', 'LINEAR_API_KEY'));
    this.linear ??= import('@linear/sdk').then((sdk) => ({
      client: new sdk.LinearClient({ apiKey, ...(apiUrl ? { apiUrl } : {}) }),
      parseError: (error) =>
        sdk.parseLinearError(error as Parameters<typeof sdk.parseLinearError>[0]),
    }));
    const linear = this.linear;
    return withRateLimitRetry(this.policy, async () => {
      try {
        return await run(await linear);
      } catch (error) {
        throw codeLinearError(error, action);
      }
    });
  }
}

/** The loaded SDK: a client and its error parser. */
interface Linear {
  client: LinearClient;
  parseError: (error: unknown) => Error;
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

/** The SDK's error types (a string enum whose values are its names), read without loading it. */
type LinearErrorTypeName = `${LinearErrorType}`;

/** The HTTP status each kind of Linear failure stands for; input errors are 400 or 404. */
const STATUS_OF_TYPE: Partial<Record<LinearErrorTypeName, number | 'input'>> = {
  AuthenticationError: 401,
  Forbidden: 403,
  FeatureNotAccessible: 403,
  Ratelimited: 429,
  UsageLimitExceeded: 429,
  InvalidInput: 'input',
  UserError: 'input',
  GraphqlError: 'input',
};

function statusOf(failure: LinearFailure, message: string): number {
  const status = STATUS_OF_TYPE[failure.type as LinearErrorTypeName];
  if (status === 'input') return /not found/i.test(message) ? 404 : 400;
  if (status !== undefined) return status;
  return failure.status && failure.status >= 400 ? failure.status : 503;
}
