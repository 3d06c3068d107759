/** Every coded error Caravel raises. Adding a code forces each mapper below to decide about it. */
export const ERROR_CODES = [
  'BAD_REQUEST',
  'MESSAGE_MALFORMED',
  'SIGNATURE_INVALID',
  'UNAUTHENTICATED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'DUPLICATE',
  'LEASE_HELD',
  'PRECONDITION_FAILED',
  'CONFIG_INVALID',
  'DEPENDENCY_UNAVAILABLE',
  'TIMEOUT',
  'RATE_LIMITED',
  'MIGRATION_MODIFIED',
  'INTERNAL',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** Whether an error of this code is worth retrying when the raiser does not say. */
export function defaultRetryable(code: ErrorCode): boolean {
  switch (code) {
    case 'DEPENDENCY_UNAVAILABLE':
    case 'TIMEOUT':
    case 'RATE_LIMITED':
    case 'LEASE_HELD':
      return true;
    case 'BAD_REQUEST':
    case 'MESSAGE_MALFORMED':
    case 'SIGNATURE_INVALID':
    case 'UNAUTHENTICATED':
    case 'FORBIDDEN':
    case 'NOT_FOUND':
    case 'CONFLICT':
    case 'DUPLICATE':
    case 'PRECONDITION_FAILED':
    case 'CONFIG_INVALID':
    case 'MIGRATION_MODIFIED':
    case 'INTERNAL':
      return false;
  }
}
