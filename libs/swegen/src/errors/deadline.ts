import { swegenError } from './swegen-errors.js';

/** The error an aborted signal stands for: its reason when that is an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(String(reason));
}

/** A time limit on one piece of work; `clear` it when the work ends. */
export interface Deadline {
  /** Aborts with a `timed_out` swegen error when the limit passes (absent: no limit). */
  readonly signal?: AbortSignal;
  clear(): void;
}

/**
 * A deadline `ms` from now for `what` (e.g. "acme/strings#7"); no limit when `ms` is undefined
 * or 0. Its signal aborts with TIMED_OUT, which every step that takes a signal rejects with.
 */
export function deadline(ms: number | undefined, what: string): Deadline {
  if (!ms) return { clear: () => undefined };
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(
      swegenError('timed_out', `${what} took longer than ${ms / 1000} s (--timeout): abandoned`),
    );
  }, ms);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
