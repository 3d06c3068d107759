import { AppError, type ErrorCode } from '@caravel/errors';

/**
 * Why a sandbox operation failed, carried in `AppError.details.reason` so callers (the agent's
 * tools, the broker) can tell cases apart without new error codes.
 */
export const SANDBOX_ERROR_REASONS = {
  pathOutsideWorkdir: 'path_outside_workdir',
  fileNotFound: 'file_not_found',
  notAFile: 'not_a_file',
  fileTooLarge: 'file_too_large',
  editTextAbsent: 'edit_text_absent',
  editTextAmbiguous: 'edit_text_ambiguous',
  invalidInput: 'invalid_input',
  sessionDead: 'session_dead',
  sessionClosed: 'session_closed',
  sandboxNotFound: 'sandbox_not_found',
  sandboxExists: 'sandbox_exists',
  providerUnavailable: 'provider_unavailable',
  providerAuthFailed: 'provider_auth_failed',
  oneShotTimedOut: 'one_shot_timed_out',
  oneShotTooLarge: 'one_shot_too_large',
  unsupported: 'unsupported',
} as const;

export type SandboxErrorReason = (typeof SANDBOX_ERROR_REASONS)[keyof typeof SANDBOX_ERROR_REASONS];

const CODE_FOR_REASON: Record<SandboxErrorReason, ErrorCode> = {
  path_outside_workdir: 'FORBIDDEN',
  file_not_found: 'NOT_FOUND',
  not_a_file: 'BAD_REQUEST',
  file_too_large: 'BAD_REQUEST',
  edit_text_absent: 'PRECONDITION_FAILED',
  edit_text_ambiguous: 'CONFLICT',
  invalid_input: 'BAD_REQUEST',
  session_dead: 'DEPENDENCY_UNAVAILABLE',
  session_closed: 'PRECONDITION_FAILED',
  sandbox_not_found: 'NOT_FOUND',
  sandbox_exists: 'CONFLICT',
  provider_unavailable: 'DEPENDENCY_UNAVAILABLE',
  // The broker's own credentials for a remote provider were refused: its configuration is wrong.
  provider_auth_failed: 'CONFIG_INVALID',
  one_shot_timed_out: 'TIMEOUT',
  one_shot_too_large: 'PRECONDITION_FAILED',
  unsupported: 'PRECONDITION_FAILED',
};

/**
 * A coded sandbox error. A dead session is not retryable: replacing the sandbox is the broker's
 * decision (it may hold work), never an automatic retry.
 */
export function sandboxError(
  reason: SandboxErrorReason,
  message: string,
  details: Record<string, unknown> = {},
): AppError {
  return new AppError(CODE_FOR_REASON[reason], message, {
    retryable: false,
    details: { reason, ...details },
  });
}

/** The `details.reason` of a sandbox error, or undefined for any other value. */
export function sandboxErrorReason(error: unknown): SandboxErrorReason | undefined {
  if (!(error instanceof AppError)) return undefined;
  const reason = error.details['reason'];
  return typeof reason === 'string' &&
    (Object.values(SANDBOX_ERROR_REASONS) as string[]).includes(reason)
    ? (reason as SandboxErrorReason)
    : undefined;
}
