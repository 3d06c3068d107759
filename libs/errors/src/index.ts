export { ERROR_CODES, defaultRetryable, type ErrorCode } from './error-codes.js';
export { AppError, isAppError, toAppError, type AppErrorOptions } from './app-error.js';
export { httpStatusFor, settlementFor, type Settlement } from './mappers.js';
