// What the runner reads of a run's errors at start, without LangChain
// (`@caravel/middleware/errors`): the middleware itself re-exports both.
import { isAppError, type AppError } from '@caravel/errors';

/**
 * Finds the AppError in an error's `cause` chain. LangChain wraps errors that cross a middleware
 * in a MiddlewareError, so the code a tool or model raised sits one or more causes deep.
 */
export function findAppError(error: unknown): AppError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current !== undefined && current !== null; depth++) {
    if (isAppError(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

/**
 * The one message the user gets when the thread's sandbox is gone or cannot be reached: what
 * happened, why nothing was replaced, and what they can do.
 */
export function sandboxUnreachableNotice(error: unknown): string {
  const sandboxId = findAppError(error)?.details['sandboxId'];
  const which = typeof sandboxId === 'string' ? ` (${sandboxId})` : '';
  return (
    `I stopped: this thread's sandbox${which} cannot be reached; it was deleted or is unavailable. ` +
    'I did not start over in a new, empty sandbox, because it would not hold the work done here ' +
    'that was not pushed yet. Try again later if the sandbox was only unavailable. To go on in a ' +
    'fresh sandbox, ask for one from the dashboard or with /recreate in `caravel attach` (the old ' +
    'one is kept for recovery), or start a new thread.'
  );
}
