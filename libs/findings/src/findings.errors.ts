import { AppError, isAppError, type ErrorCode } from '@caravel/errors';

/**
 * Why the findings library refused something. Stable strings a tool can branch on; the error's
 * message is written for the model and says what to do instead.
 */
export type FindingsErrorReason =
  /** The input does not match the schema (one line per bad field in the message). */
  | 'invalid_input'
  /** The description only restates the title. */
  | 'description_repeats_title'
  /** The anchor is not a range GitHub accepts a comment on (details: `rejection`, `suggestion`). */
  | 'anchor_not_commentable'
  /** An open or dismissed finding already says this (details: `findingId`). */
  | 'duplicate'
  /** No finding with this id in the ledger. */
  | 'finding_not_found'
  /** The transition does not apply to the finding's status (details: `status`). */
  | 'invalid_transition'
  /** Resolving as fixed at the sha the finding was found at: nothing was committed since. */
  | 'not_fixed_by_commit'
  /** A `git diff` text that cannot be read (details: `line`, 1-based). */
  | 'diff_malformed'
  /** A combined (merge) diff: review diffs compare two trees. */
  | 'diff_combined';

/** Builds the library's coded error: `details.reason` plus whatever the caller needs to act. */
export function findingsError(
  code: ErrorCode,
  reason: FindingsErrorReason,
  message: string,
  details: Record<string, unknown> = {},
): AppError {
  return new AppError(code, message, { retryable: false, details: { ...details, reason } });
}

/** The reason of an error raised by this library, if it is one. */
export function findingsErrorReason(error: unknown): FindingsErrorReason | undefined {
  if (!isAppError(error)) return undefined;
  const reason = error.details['reason'];
  return typeof reason === 'string' ? (reason as FindingsErrorReason) : undefined;
}
