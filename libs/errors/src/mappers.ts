import { AppError, toAppError } from './app-error.js';
import { isTransient, type ErrorCode } from './error-codes.js';

/** The HTTP status a coded error answers with. */
export function httpStatusFor(code: ErrorCode): number {
  switch (code) {
    case 'BAD_REQUEST':
    case 'MESSAGE_MALFORMED':
      return 400;
    case 'SIGNATURE_INVALID':
    case 'UNAUTHENTICATED':
      return 401;
    case 'FORBIDDEN':
      return 403;
    case 'NOT_FOUND':
      return 404;
    case 'CONFLICT':
    case 'DUPLICATE':
    case 'LEASE_HELD':
      return 409;
    case 'PRECONDITION_FAILED':
      return 412;
    case 'RATE_LIMITED':
      return 429;
    case 'DEPENDENCY_UNAVAILABLE':
      return 503;
    case 'TIMEOUT':
      return 504;
    case 'CONFIG_INVALID':
    case 'MIGRATION_MODIFIED':
    case 'MIGRATIONS_PENDING':
    case 'INTERNAL':
      return 500;
  }
}

/** Seconds a caller is told to wait before retrying a dependency outage (`Retry-After`). */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 30;
/** Seconds a caller is told to wait after a rate limit that named no wait of its own. */
export const RATE_LIMIT_RETRY_AFTER_SECONDS = 60;

/**
 * The `Retry-After` (whole seconds) an HTTP answer carries for a coded error, or undefined for
 * codes a retry cannot cure soon. A wait the error carries in `details.retryAfterSeconds` (an
 * upstream's own `Retry-After`) wins over the code's default.
 */
export function retryAfterSecondsFor(error: AppError): number | undefined {
  const given = error.details['retryAfterSeconds'];
  const carried =
    typeof given === 'number' && Number.isFinite(given) && given >= 0
      ? Math.ceil(given)
      : undefined;
  // Only a transient code has a wait worth telling; the others get no Retry-After.
  if (!isTransient(error.code)) return undefined;
  switch (error.code) {
    case 'DEPENDENCY_UNAVAILABLE':
      return carried ?? DEPENDENCY_RETRY_AFTER_SECONDS;
    case 'RATE_LIMITED':
      return carried ?? RATE_LIMIT_RETRY_AFTER_SECONDS;
    case 'TIMEOUT':
    case 'LEASE_HELD':
      return carried;
  }
}

/** How a consumed message is settled after its handler ran. */
export type Settlement = 'ack' | 'nak' | 'term';

/**
 * The settlement for a handler's outcome: success acks; a retryable error naks (redelivered with
 * backoff); anything else terms (no redelivery, dead-lettered with the reason). A duplicate is
 * already handled, so it acks.
 */
export function settlementFor(outcome: { ok: true } | { ok: false; error: unknown }): Settlement {
  if (outcome.ok) return 'ack';
  const error: AppError = toAppError(outcome.error);
  if (error.code === 'DUPLICATE') return 'ack';
  return error.retryable ? 'nak' : 'term';
}
