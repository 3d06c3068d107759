import { AppError, type ErrorCode } from '@caravel/errors';

/**
 * Why a swegen command stopped, carried in `AppError.details.reason` (no new error codes): each
 * reason maps to a code here and to a distinct process exit status in the CLI.
 */
export const SWEGEN_ERROR_REASONS = [
  'trivial_pr',
  'missing_issue',
  'validation_failed',
  'already_exists',
  'publish_error',
  'publish_auth_error',
  'rate_limited',
  'invalid_input',
  'pr_not_merged',
  'git_failed',
  'timed_out',
] as const;

export type SwegenErrorReason = (typeof SWEGEN_ERROR_REASONS)[number];

const CODE_FOR_REASON: Record<SwegenErrorReason, ErrorCode> = {
  trivial_pr: 'PRECONDITION_FAILED',
  missing_issue: 'PRECONDITION_FAILED',
  validation_failed: 'PRECONDITION_FAILED',
  already_exists: 'CONFLICT',
  publish_error: 'DEPENDENCY_UNAVAILABLE',
  publish_auth_error: 'UNAUTHENTICATED',
  rate_limited: 'RATE_LIMITED',
  invalid_input: 'BAD_REQUEST',
  pr_not_merged: 'PRECONDITION_FAILED',
  git_failed: 'DEPENDENCY_UNAVAILABLE',
  timed_out: 'TIMEOUT',
};

/** Process exit status per reason; 0 is success, 1 an unexpected failure, 2 a usage error. */
export const SWEGEN_EXIT_CODES: Record<SwegenErrorReason, number> = {
  invalid_input: 2,
  trivial_pr: 10,
  missing_issue: 11,
  validation_failed: 12,
  already_exists: 13,
  publish_error: 14,
  publish_auth_error: 15,
  rate_limited: 16,
  pr_not_merged: 17,
  git_failed: 18,
  timed_out: 19,
};

/** A coded swegen error; only a rate limit is retryable (after swapping or waiting out the token). */
export function swegenError(
  reason: SwegenErrorReason,
  message: string,
  details: Record<string, unknown> = {},
): AppError {
  return new AppError(CODE_FOR_REASON[reason], message, {
    retryable: reason === 'rate_limited',
    details: { reason, ...details },
  });
}

/** The swegen reason of an error, or undefined for anything else. */
export function swegenErrorReason(error: unknown): SwegenErrorReason | undefined {
  if (!(error instanceof AppError)) return undefined;
  const reason = error.details['reason'];
  return typeof reason === 'string' && (SWEGEN_ERROR_REASONS as readonly string[]).includes(reason)
    ? (reason as SwegenErrorReason)
    : undefined;
}

/** The exit status a CLI should end with for `error` (1 when it is not a swegen error). */
export function swegenExitCode(error: unknown): number {
  const reason = swegenErrorReason(error);
  return reason === undefined ? 1 : SWEGEN_EXIT_CODES[reason];
}
