import { isGraphBubbleUp } from '@langchain/langgraph';
import { findAppError } from './errors.js';

export { findAppError };

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
