import { AppError } from '@caravel/errors';
import { exitReasonForError, exitReasonForMiddleware } from './exit-reasons.js';

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

  it('treats a runaway graph as a cost exit and anything else as exit_error', () => {
    const recursion = new Error('Recursion limit of 25 reached');
    recursion.name = 'GraphRecursionError';
    expect(exitReasonForError(recursion)).toBe('exit_cost');
    expect(exitReasonForError(new AppError('CONFIG_INVALID', 'no model'))).toBe('exit_error');
    expect(exitReasonForError(new TypeError('bug'))).toBe('exit_error');
  });
});
