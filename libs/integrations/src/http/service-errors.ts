import { AppError, isAppError } from '@caravel/errors';

/** An HTTP failure of a SaaS API, as the adapters see it before coding it. */
export interface ServiceFailure {
  /** The service, for messages: `GitHub`, `Slack`, ... */
  service: string;
  /** What was attempted, for messages: `post a comment on acme/widgets#3`. */
  action: string;
  status: number;
  /** The service's own message, when it gave one (never a credential). */
  message?: string;
  /** Seconds the service asked us to wait (`retry-after`). */
  retryAfterSeconds?: number;
  /** The service's machine-readable reason (`already_reacted`), kept in `details.reason`. */
  reason?: string;
}

/**
 * Codes an HTTP failure: 401 → `UNAUTHENTICATED`, 403 → `FORBIDDEN`, 404 → `NOT_FOUND`,
 * 409 → `CONFLICT`, other 4xx → `BAD_REQUEST`, 429 → `RATE_LIMITED` (retryable, with the wait in
 * `details.retryAfterSeconds`), 5xx and transport failures → `DEPENDENCY_UNAVAILABLE`.
 */
export function serviceError(failure: ServiceFailure): AppError {
  const { service, action, status } = failure;
  const said = failure.message ? `: ${failure.message}` : '';
  const details = {
    service,
    status,
    ...(failure.reason === undefined ? {} : { reason: failure.reason }),
    ...(failure.retryAfterSeconds === undefined
      ? {}
      : { retryAfterSeconds: failure.retryAfterSeconds }),
  };
  const message = (what: string): string => `${service} ${what} (${action})${said}`;
  if (status === 401)
    return new AppError('UNAUTHENTICATED', message('rejected the credentials'), { details });
  if (status === 403) return new AppError('FORBIDDEN', message('refused access'), { details });
  if (status === 404) return new AppError('NOT_FOUND', message('found nothing'), { details });
  if (status === 409) return new AppError('CONFLICT', message('reported a conflict'), { details });
  if (status === 429) {
    const wait =
      failure.retryAfterSeconds === undefined ? '' : `; retry after ${failure.retryAfterSeconds}s`;
    return new AppError('RATE_LIMITED', `${message('is rate limiting us')}${wait}`, { details });
  }
  if (status >= 400 && status < 500)
    return new AppError('BAD_REQUEST', message(`refused the request (${status})`), { details });
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    message(`is unavailable (${status || 'no response'})`),
    {
      details,
    },
  );
}

/** The error for an integration that has no credentials configured. */
export function notConfigured(service: string, settings: string): AppError {
  return new AppError(
    'PRECONDITION_FAILED',
    `${service} is not configured: set ${settings} to use it.`,
    { details: { service } },
  );
}

/** Parses a `retry-after` header (seconds) when present and sane. */
export function retryAfterSeconds(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined) return undefined;
  const seconds = Number.parseInt(value, 10);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/** True when `error` is a rate limit that says how long to wait. */
export function rateLimitWait(error: unknown): number | undefined {
  if (!isAppError(error) || error.code !== 'RATE_LIMITED') return undefined;
  const seconds = error.details['retryAfterSeconds'];
  return typeof seconds === 'number' ? seconds : undefined;
}
