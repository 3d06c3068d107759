/** Codes a retry can cure soon: a dependency back, a limit lifted, a lease expired. */
export const TRANSIENT_CODES = [
  'DEPENDENCY_UNAVAILABLE',
  'TIMEOUT',
  'RATE_LIMITED',
  'LEASE_HELD',
] as const;

/** Codes a retry cannot cure: the request, the configuration or the code must change first. */
export const PERMANENT_CODES = [
  'BAD_REQUEST',
  'MESSAGE_MALFORMED',
  'SIGNATURE_INVALID',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'DUPLICATE',
  'PRECONDITION_FAILED',
  'CONFIG_INVALID',
  'MIGRATION_MODIFIED',
  'MIGRATIONS_PENDING',
  'INTERNAL',
] as const;

/**
 * Every coded error Caravel raises, each sorted into transient or permanent where it is added.
 * Adding a code forces each mapper (`mappers.ts`) to decide about it.
 */
export const ERROR_CODES = [...PERMANENT_CODES, ...TRANSIENT_CODES] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
export type TransientCode = (typeof TRANSIENT_CODES)[number];

/** Whether a retry can cure an error of this code soon. */
export function isTransient(code: ErrorCode): code is TransientCode {
  return (TRANSIENT_CODES as readonly ErrorCode[]).includes(code);
}

/** Whether an error of this code is worth retrying when the raiser does not say. */
export function defaultRetryable(code: ErrorCode): boolean {
  return isTransient(code);
}
