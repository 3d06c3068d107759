export {
  ERROR_CODES,
  PERMANENT_CODES,
  TRANSIENT_CODES,
  defaultRetryable,
  isTransient,
  type ErrorCode,
  type TransientCode,
} from './error-codes.js';
export { AppError, isAppError, toAppError, type AppErrorOptions } from './app-error.js';
export {
  DEPENDENCY_RETRY_AFTER_SECONDS,
  httpStatusFor,
  RATE_LIMIT_RETRY_AFTER_SECONDS,
  retryAfterSecondsFor,
  settlementFor,
  type Settlement,
} from './mappers.js';
export { untilAborted } from './until-aborted.js';
