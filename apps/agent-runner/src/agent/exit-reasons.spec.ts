import { LoopExitError } from '@caravel/agent';
import { AppError } from '@caravel/errors';
import { isSandboxUnreachable, sandboxUnreachable } from '@caravel/sandbox';
import { exitReasonForError, exitReasonForMiddleware, sandboxNotStarted } from './exit-reasons.js';

describe('exit reasons', () => {
  it('maps the middleware exits to SWE-agent statuses', () => {
    expect(exitReasonForMiddleware('exit_model_call_limit')).toBe('exit_cost');
    expect(exitReasonForMiddleware('exit_environment_error')).toBe('exit_environment_error');
    expect(exitReasonForMiddleware('exit_no_reply')).toBe('exit_format');
  });

  it('maps provider failures to exit_api and an exhausted script to exit_format', () => {
    expect(exitReasonForError(new AppError('RATE_LIMITED', 'slow down'))).toBe('exit_api');
    expect(exitReasonForError(new AppError('TIMEOUT', 'slow'))).toBe('exit_api');
    expect(
      exitReasonForError(
        new AppError('PRECONDITION_FAILED', 'done', {
          details: { reason: 'model-script-exhausted' },
        }),
      ),
    ).toBe('exit_format');
  });

  it("maps a thread's sandbox that is gone or unreachable to exit_environment_error", () => {
    expect(exitReasonForError(sandboxUnreachable('t-1', 'sb-1', new Error('not found')))).toBe(
      'exit_environment_error',
    );
    expect(exitReasonForError(new AppError('DEPENDENCY_UNAVAILABLE', 'broker down'))).toBe(
      'exit_api',
    );
  });

  it('ends a run whose sandbox could not start with exit_environment_error, never exit_api', () => {
    const noBwrap = new AppError('DEPENDENCY_UNAVAILABLE', 'bubblewrap is not installed');
    expect(exitReasonForError(sandboxNotStarted(noBwrap))).toBe('exit_environment_error');
    expect(exitReasonForError(sandboxNotStarted(new Error('clone failed')))).toBe(
      'exit_environment_error',
    );
    expect(sandboxNotStarted(noBwrap).message).toMatch(/sandbox could not start: bubblewrap/);
    const gone = sandboxNotStarted(sandboxUnreachable('t-1', 'sb-1', new Error('not found')));
    expect(isSandboxUnreachable(gone)).toBe(true);
  });

  it('treats a runaway graph as a cost exit and anything else as exit_error', () => {
    const recursion = new Error('Recursion limit of 25 reached');
    recursion.name = 'GraphRecursionError';
    expect(exitReasonForError(recursion)).toBe('exit_cost');
    expect(exitReasonForError(new AppError('CONFIG_INVALID', 'no model'))).toBe('exit_error');
    expect(exitReasonForError(new TypeError('bug'))).toBe('exit_error');
  });

  it('keeps the reason of a loop exit even when LangChain wrapped it in another error', () => {
    const exit = new LoopExitError('exit_context', 'prompt too long');
    const wrapped = new Error('middleware failed', { cause: exit });
    expect(exitReasonForError(wrapped)).toBe('exit_context');
    expect(exitReasonForError(new LoopExitError('exit_stuck', 'looping'))).toBe('exit_stuck');
    expect(
      exitReasonForError(new Error('outer', { cause: new AppError('RATE_LIMITED', 'x') })),
    ).toBe('exit_api');
  });
});
