import { AppError, toAppError } from './app-error.js';
import type { ErrorCode } from './error-codes.js';

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
    case 'INTERNAL':
      return 500;
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
