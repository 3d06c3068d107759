import { AppError, isAppError } from '@caravel/errors';
import { isExitReason, type ExitReason } from './exit-status.js';

/**
 * Thrown to end a run with a known exit reason (a limit reached, too many format errors, an
 * exhausted API retry, a dead sandbox...). It is not retryable: the run concludes through
 * {@link concludeRun} instead.
 */
export class LoopExitError extends AppError {
  readonly reason: ExitReason;

  constructor(reason: ExitReason, message: string, details: Record<string, unknown> = {}) {
    super('PRECONDITION_FAILED', message, {
      retryable: false,
      details: { ...details, exitReason: reason },
    });
    this.name = 'LoopExitError';
    this.reason = reason;
  }
}

/** Whether `value` is a {@link LoopExitError}. */
export function isLoopExit(value: unknown): value is LoopExitError {
  return value instanceof LoopExitError;
}

/**
 * The exit reason for anything a run's step threw: a {@link LoopExitError} keeps its reason, an
 * AppError carrying `details.exitReason` uses it, and everything else is `exit_error`
 * (SWE-agent's catch-all).
 */
export function exitReasonOf(error: unknown): ExitReason {
  if (isLoopExit(error)) return error.reason;
  if (isAppError(error)) {
    const reason = error.details['exitReason'];
    if (typeof reason === 'string' && isExitReason(reason)) return reason;
  }
  return 'exit_error';
}
