import { isAppError, type AppError } from '@caravel/errors';
import { isGraphBubbleUp } from '@langchain/langgraph';

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

/** Interrupts and other graph control flow must pass through middleware untouched. */
export function isControlFlow(error: unknown): boolean {
  return isGraphBubbleUp(error);
}

/** A one-line description of anything thrown, with its code when it carries one. */
export function describeError(error: unknown): string {
  const coded = findAppError(error);
  if (coded) return `${coded.code}: ${coded.message}`;
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
