import { findingsErrorReason } from '../findings.errors.js';

/** The findings reason of what `run` throws, or undefined when it returns. */
export function thrownReason(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return findingsErrorReason(error);
  }
  return undefined;
}
