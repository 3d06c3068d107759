import { isAppError, type AppError } from '@caravel/errors';
import { WebClient } from '@slack/web-api';
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
  private readonly client: WebClient | undefined;
  private readonly policy: RetryPolicy;

  constructor(options: SlackApiOptions) {
    this.policy = retryPolicy(options.retry);
    this.client = options.botToken
      ? new WebClient(options.botToken, {
          slackApiUrl: options.apiUrl ?? 'https://slack.com/api/',
          retryConfig: { retries: 0 },
          rejectRateLimitedCalls: true,
        })
      : undefined;
  }

  /** Calls a Web API method; `action` names it in errors. */
  async call<T>(action: string, run: (client: WebClient) => Promise<T>): Promise<T> {
    const client = this.client;
    if (!client) throw notConfigured('Slack', 'SLACK_BOT_TOKEN');
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
