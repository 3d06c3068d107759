import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Fields every log line written while a piece of work runs carries: for a bus message its
 * correlation id, thread, subject and type. Bounded, identifying values only; never payloads.
 */
export interface LogFields {
  readonly correlationId?: string;
  readonly threadId?: string;
  readonly runId?: string;
  readonly subject?: string;
  readonly messageType?: string;
  readonly [field: string]: string | number | boolean | undefined;
}

const storage = new AsyncLocalStorage<LogFields>();

/** The fields bound to the work running now (empty outside any). */
export function currentLogFields(): LogFields {
  return storage.getStore() ?? {};
}

/**
 * Runs `fn`, and everything it awaits or schedules, with `fields` added to every log line; the
 * fields of an enclosing scope stay unless `fields` replaces them. Undefined values are dropped.
 */
export function runWithLogFields<T>(fields: LogFields, fn: () => T): T {
  const defined = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== undefined),
  );
  return storage.run({ ...currentLogFields(), ...defined }, fn);
}

const THREAD_SUBJECT = /(?:^|\.)(?:thread|sandbox)\.([^.]+)\./;

/**
 * The thread id a `thread.<id>.…` or `sandbox.<id>.<op>` subject names (after an optional
 * namespace prefix).
 */
export function threadIdOfSubject(subject: string): string | undefined {
  return THREAD_SUBJECT.exec(subject)?.[1];
}
