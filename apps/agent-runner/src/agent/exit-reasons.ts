import { exitReasonOf, isLoopExit, type ExitReason } from '@caravel/agent';
import { findAppError, type RunExitStatus } from '@caravel/middleware';
import { isSandboxUnreachable } from '@caravel/sandbox';

/** How a middleware's early exit reads in SWE-agent's vocabulary. */
export function exitReasonForMiddleware(status: RunExitStatus): ExitReason {
  switch (status) {
    case 'exit_model_call_limit':
      return 'exit_cost';
    case 'exit_environment_error':
      return 'exit_environment_error';
    case 'exit_no_reply':
      return 'exit_format';
  }
}

/** The exit reason for an error that ended the run. */
export function exitReasonForError(error: unknown): ExitReason {
  if (error instanceof Error && error.name === 'GraphRecursionError') return 'exit_cost';
  // LangChain wraps what a middleware throws; the coded error sits somewhere in the cause chain.
  const coded = findAppError(error);
  if (coded === undefined) return 'exit_error';
  if (isLoopExit(coded) || coded.details['exitReason'] !== undefined) return exitReasonOf(coded);
  if (coded.details['reason'] === 'model-script-exhausted') return 'exit_format';
  // The thread's sandbox is gone or unreachable (and was not replaced): the environment failed.
  if (isSandboxUnreachable(coded)) return 'exit_environment_error';
  const apiFailures: readonly string[] = ['TIMEOUT', 'DEPENDENCY_UNAVAILABLE', 'RATE_LIMITED'];
  return apiFailures.includes(coded.code) ? 'exit_api' : 'exit_error';
}
