import { isAppError, type AppError } from '@caravel/errors';
import type { Octokit } from '@octokit/rest';
import { retryAfterSeconds, serviceError } from '../http/service-errors.js';
import { retryPolicy, withRateLimitRetry, type RetryPolicy } from '../http/rate-limit-retry.js';
import { loadOctokit } from './octokit-loader.js';

/** `owner/name` of a GitHub repository. */
export interface GitHubRepository {
  owner: string;
  name: string;
}

/** The token to act on a repository with (a user's OAuth token or an installation token). */
export type GitHubTokenProvider = (repository: GitHubRepository) => Promise<string>;

/** Settings of {@link GitHubApi}. */
export interface GitHubApiOptions {
  /** The REST API root (`https://api.github.com`, a GHES `/api/v3`, or a loopback fake). */
  baseUrl: string;
  tokens: GitHubTokenProvider;
  retry?: Partial<RetryPolicy>;
}

/** Octokit's log, silenced: failures reach callers as coded errors instead. */
export const silentOctokitLog = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * Octokit behind Caravel's error codes: each call gets a client with a fresh token for its
 * repository, failures become coded `AppError`s (see `serviceError`), and a short rate limit is
 * waited out once. Octokit's own retries are off so the policy is ours alone.
 */
export class GitHubApi {
  private readonly policy: RetryPolicy;

  constructor(private readonly options: GitHubApiOptions) {
    this.policy = retryPolicy(options.retry);
  }

  /** Runs `call` with an authenticated Octokit for `repository`; `action` names it in errors. */
  async call<T>(
    repository: GitHubRepository,
    action: string,
    call: (octokit: Octokit) => Promise<T>,
  ): Promise<T> {
    return this.callWith(() => this.options.tokens(repository), action, call);
  }

  /** {@link call} with the token `token` gives (one that is not a repository's). */
  async callWith<T>(
    token: () => Promise<string>,
    action: string,
    call: (octokit: Octokit) => Promise<T>,
  ): Promise<T> {
    return withRateLimitRetry(this.policy, async () => {
      const auth = await token();
      const Octokit = await loadOctokit();
      const octokit = new Octokit({
        auth,
        baseUrl: this.options.baseUrl,
        log: silentOctokitLog,
        request: { retries: 0 },
      });
      try {
        return await call(octokit);
      } catch (error) {
        throw codeOctokitError(error, action);
      }
    });
  }
}

interface OctokitFailure {
  status?: number;
  message?: string;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

/** Codes an Octokit failure; GitHub's secondary rate limits (403 + retry-after) become 429s. */
export function codeOctokitError(error: unknown, action: string): AppError {
  if (isAppError(error)) return error;
  const failure = (error ?? {}) as OctokitFailure;
  const headers = failure.response?.headers ?? {};
  const data = failure.response?.data as { message?: unknown } | undefined;
  const wait = retryAfterSeconds(headers['retry-after']);
  const limited =
    failure.status === 403 && (wait !== undefined || headers['x-ratelimit-remaining'] === '0');
  return serviceError({
    service: 'GitHub',
    action,
    status: limited ? 429 : (failure.status ?? 0),
    ...(typeof data?.message === 'string' ? { message: data.message } : {}),
    ...(wait === undefined ? {} : { retryAfterSeconds: wait }),
  });
}
