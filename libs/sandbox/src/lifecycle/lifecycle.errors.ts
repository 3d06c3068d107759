import { AppError } from '@caravel/errors';

/** `details.reason` values the lifecycle adds to the sandbox library's own. */
export const LIFECYCLE_ERROR_REASONS = {
  sandboxUnreachable: 'sandbox_unreachable',
  threadHasNoSandbox: 'thread_has_no_sandbox',
  replacementNotAllowed: 'replacement_not_allowed',
} as const;

/**
 * The thread's sandbox exists (it may hold uncommitted work) but cannot be reached. It is never
 * replaced behind the user's back: the caller tells the user, who may ask for a recreate (which
 * keeps the old one for recovery).
 */
export function sandboxUnreachable(threadId: string, sandboxId: string, cause: unknown): AppError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `the sandbox of thread ${threadId} (${sandboxId}) cannot be reached: ${why}. It may hold ` +
      'uncommitted work, so it was not replaced; ask for a recreate to start from a fresh ' +
      'sandbox (the old one is kept for recovery).',
    {
      retryable: false,
      cause,
      details: { reason: LIFECYCLE_ERROR_REASONS.sandboxUnreachable, threadId, sandboxId },
    },
  );
}

/** True for the error {@link sandboxUnreachable} builds, also after it crossed the bus. */
export function isSandboxUnreachable(error: unknown): boolean {
  return (
    error instanceof AppError &&
    error.details['reason'] === LIFECYCLE_ERROR_REASONS.sandboxUnreachable
  );
}

/** An operation on a thread that has no sandbox bound (acquire it first). */
export function threadHasNoSandbox(threadId: string): AppError {
  return new AppError('NOT_FOUND', `thread ${threadId} has no sandbox: acquire one first`, {
    retryable: false,
    details: { reason: LIFECYCLE_ERROR_REASONS.threadHasNoSandbox, threadId },
  });
}

/** `allowReplacement` asked by a thread that is not a reviewer's. */
export function replacementNotAllowed(threadId: string): AppError {
  return new AppError(
    'FORBIDDEN',
    `thread ${threadId} may not replace its sandbox: only reviewer threads re-derive theirs`,
    {
      retryable: false,
      details: { reason: LIFECYCLE_ERROR_REASONS.replacementNotAllowed, threadId },
    },
  );
}
