import { defaultRetryable, type ErrorCode } from './error-codes.js';

export interface AppErrorOptions {
  retryable?: boolean;
  cause?: unknown;
  details?: Record<string, unknown>;
}

/** The one error type services raise: a code, a human message, and whether a retry may help. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryable = options.retryable ?? defaultRetryable(code);
    this.details = options.details ?? {};
  }

  /** A JSON-safe view for logs and HTTP bodies (no stack, no cause chain). */
  toJSON(): {
    code: ErrorCode;
    message: string;
    retryable: boolean;
    details: Record<string, unknown>;
  } {
    return {
      code: this.code,
      message: this.message,
      retryable: this.retryable,
      details: this.details,
    };
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** Wraps anything thrown into an AppError, keeping AppErrors as they are. */
export function toAppError(value: unknown): AppError {
  if (value instanceof AppError) return value;
  const message = value instanceof Error ? value.message : String(value);
  return new AppError('INTERNAL', message, { cause: value, retryable: true });
}
