import { AppError } from '@caravel/errors';

/**
 * Why a run stopped without a clean submission, in SWE-agent's vocabulary. `exit_stuck` (stuck
 * detection), `exit_interrupted` (a new message stopped the run; the next run resumes its
 * history), `exit_budget_paused` (its next model call would cross its budget: it waits for
 * someone to grant more) and `exit_unpublished` (it submitted changes its pull request does not
 * hold: their last publish failed, or the person who asked always wants one and none was opened)
 * are Caravel's additions; every other reason is SWE-agent's own.
 */
export const EXIT_REASONS = [
  'exit_cost',
  'exit_context',
  'exit_format',
  'exit_command_timeout',
  'exit_total_execution_time',
  'exit_environment_error',
  'exit_error',
  'exit_api',
  'exit_forfeit',
  'exit_command',
  'exit_stuck',
  'exit_interrupted',
  'exit_budget_paused',
  'exit_unpublished',
] as const;

/** One of {@link EXIT_REASONS}. */
export type ExitReason = (typeof EXIT_REASONS)[number];

/**
 * The final status of a run: `submitted` (the agent submitted), a bare reason (it stopped and
 * nothing could be submitted), or `submitted (<reason>)` (it stopped and the autosubmission
 * found a non-empty diff).
 */
export type ExitStatus = 'submitted' | ExitReason | `submitted (${ExitReason})`;

/** An exit status taken apart: did a submission happen, and what ended the run. */
export interface ExitStatusParts {
  submitted: boolean;
  /** `null` for a clean `submitted`. */
  reason: ExitReason | null;
}

const PREFIXED = /^submitted \((exit_[a-z_]+)\)$/;

/** Whether `value` names one of {@link EXIT_REASONS}. */
export function isExitReason(value: string): value is ExitReason {
  return (EXIT_REASONS as readonly string[]).includes(value);
}

/** The status for an autosubmission that found a diff after `reason` ended the run. */
export function submittedAfter(reason: ExitReason): ExitStatus {
  return `submitted (${reason})`;
}

/**
 * Takes an exit status apart.
 * @throws AppError BAD_REQUEST when `status` is not a known exit status.
 */
export function parseExitStatus(status: string): ExitStatusParts {
  if (status === 'submitted') return { submitted: true, reason: null };
  if (isExitReason(status)) return { submitted: false, reason: status };
  const inner = PREFIXED.exec(status)?.[1];
  if (inner !== undefined && isExitReason(inner)) return { submitted: true, reason: inner };
  throw new AppError('BAD_REQUEST', `Unknown exit status '${status}'`, {
    details: { status, known: EXIT_REASONS },
  });
}

/** Whether `status` is a well-formed exit status. */
export function isExitStatus(status: string): status is ExitStatus {
  try {
    parseExitStatus(status);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a run ending with `reason` attempts to submit the current diff. The model's own `exit`
 * command does not (it asked to stop without submitting), nor does an interrupted or a paused
 * run (its work goes on in the run that resumes it).
 */
export function autosubmitsOn(reason: ExitReason): boolean {
  return (
    reason !== 'exit_command' && reason !== 'exit_interrupted' && reason !== 'exit_budget_paused'
  );
}

/**
 * SWE-agent's "promising patch": exactly `submitted` with a non-empty submission. A
 * `submitted (exit_*)` patch is still scored by evaluators but is not a clean finish.
 */
export function isCleanSubmission(status: string, submission: string | null | undefined): boolean {
  return status === 'submitted' && typeof submission === 'string' && submission.trim() !== '';
}
