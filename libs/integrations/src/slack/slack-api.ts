import { isAppError, type AppError } from '@caravel/errors';
import type { WebClient } from '@slack/web-api';
import { notConfigured, serviceError } from '../http/service-errors.js';
import { retryPolicy, withRateLimitRetry, type RetryPolicy } from '../http/rate-limit-retry.js';

/** Settings of {@link SlackApi}. */
export interface SlackApiOptions {
  /** The bot token (`xoxb-...`); absent means Slack is not configured. */
  botToken: string | undefined;
  /** The Web API root, ending with `/` (default `https://slack.com/api/`). */
  apiUrl?: string;
  retry?: Partial<RetryPolicy>;
}

const AUTH_ERRORS = [
  'not_authed',
  'invalid_auth',
  'account_inactive',
  'token_revoked',
  'token_expired',
];
const ACCESS_ERRORS = [
  'missing_scope',
  'not_in_channel',
  'restricted_action',
  'is_archived',
  'ekm_access_denied',
];

/**
 * The Slack Web API client behind Caravel's error codes. The client's own retries are off and
 * rate limits are rejected to us, so a short `retry-after` is waited out once by our policy and
 * a long one surfaces as `RATE_LIMITED`. Without a bot token every call fails with a clean
 * `PRECONDITION_FAILED`.
 */
export class SlackApi {
  private client: Promise<WebClient> | undefined;
  private readonly policy: RetryPolicy;

  constructor(private readonly options: SlackApiOptions) {
    this.policy = retryPolicy(options.retry);
  }

  /** Calls a Web API method; `action` names it in errors. */
  async call<T>(action: string, run: (client: WebClient) => Promise<T>): Promise<T> {
    const botToken = this.options.botToken;
    if (!botToken) throw notConfigured('Slack', 'SLACK_BOT_TOKEN');
    // The Web API client (~16-20 MiB) is loaded by the first call, not by every process that
    // could make one.
    this.client ??= import('@slack/web-api').then(
      ({ WebClient }) =>
        new WebClient(botToken, {
          slackApiUrl: this.options.apiUrl ?? 'https://slack.com/api/',
          retryConfig: { retries: 0 },
          rejectRateLimitedCalls: true,
        }),
    );
    const client = await this.client;
    return withRateLimitRetry(this.policy, async () => {
      try {
        return await run(client);
      } catch (error) {
        throw codeSlackError(error, action);
      }
    });
  }
}

interface SlackFailure {
  code?: string;
  data?: { error?: string };
  retryAfter?: number;
  statusCode?: number;
  message?: string;
}

function slackErrorName(error: unknown): string | undefined {
  const failure = (error ?? {}) as SlackFailure;
  return failure.code === 'slack_webapi_platform_error' ? failure.data?.error : undefined;
}

/** Codes a `@slack/web-api` failure by Slack's error string or HTTP status. */
export function codeSlackError(error: unknown, action: string): AppError {
  if (isAppError(error)) return error;
  const failure = (error ?? {}) as SlackFailure;
  const base = { service: 'Slack', action };
  if (failure.code === 'slack_webapi_rate_limited_error') {
    return serviceError({
      ...base,
      status: 429,
      ...(failure.retryAfter === undefined ? {} : { retryAfterSeconds: failure.retryAfter }),
    });
  }
  const name = slackErrorName(error);
  if (name) return serviceError({ ...base, status: statusOf(name), message: name, reason: name });
  return serviceError({ ...base, status: failure.statusCode ?? 0 });
}

function statusOf(slackError: string): number {
  if (AUTH_ERRORS.includes(slackError)) return 401;
  if (ACCESS_ERRORS.includes(slackError)) return 403;
  if (slackError.endsWith('_not_found')) return 404;
  if (slackError === 'ratelimited') return 429;
  return 400;
}
