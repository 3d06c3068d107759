import { exitReasonOf, isLoopExit, type ExitReason } from '@caravel/agent';
import { AppError } from '@caravel/errors';
import type { RunExitStatus } from '@caravel/middleware';
import { findAppError } from '@caravel/middleware/errors';
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

/**
 * The error a run ends with when it could not get its sandbox, whatever the broker said (no
 * bubblewrap on the host, a clone that failed, a sandbox that is gone): the environment failed,
 * never the model's API (`exit_environment_error`). The broker's code and details are kept, so a
 * sandbox that is unreachable is still recognised as such.
 */
export function sandboxNotStarted(error: unknown): AppError {
  const coded = findAppError(error);
  const reason = error instanceof Error ? error.message : String(error);
  return new AppError(
    coded?.code ?? 'INTERNAL',
    `the thread's sandbox could not start: ${reason}`,
    {
      retryable: false,
      cause: error,
      details: { ...coded?.details, exitReason: 'exit_environment_error' },
    },
  );
}

/** The sandbox `acquiring` gives, or {@link sandboxNotStarted} when it cannot be had. */
export async function sandboxForRun<T>(acquiring: Promise<T>): Promise<T> {
  try {
    return await acquiring;
  } catch (error) {
    throw sandboxNotStarted(error);
  }
}
