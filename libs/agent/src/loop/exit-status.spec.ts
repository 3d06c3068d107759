import { describe, expect, it } from '@jest/globals';
import { AppError } from '@caravel/errors';
import {
  EXIT_REASONS,
  autosubmitsOn,
  isCleanSubmission,
  isExitStatus,
  parseExitStatus,
  submittedAfter,
} from './exit-status.js';
import { LoopExitError, exitReasonOf } from './loop-exit.error.js';

describe('exit statuses', () => {
  it("knows SWE-agent reasons and Caravel's stuck, interrupted, paused and unpublished extensions", () => {
    expect([...EXIT_REASONS].sort()).toEqual(
      [
        'exit_api',
        'exit_command',
        'exit_command_timeout',
        'exit_context',
        'exit_cost',
        'exit_environment_error',
        'exit_error',
        'exit_forfeit',
        'exit_format',
        'exit_stuck',
        'exit_interrupted',
        'exit_budget_paused',
        'exit_unpublished',
        'exit_total_execution_time',
      ].sort(),
    );
  });

  it.each(EXIT_REASONS)('round-trips %s bare and prefixed', (reason) => {
    expect(parseExitStatus(reason)).toEqual({ submitted: false, reason });
    expect(submittedAfter(reason)).toBe(`submitted (${reason})`);
    expect(parseExitStatus(submittedAfter(reason))).toEqual({ submitted: true, reason });
  });

  it('parses a clean submission', () => {
    expect(parseExitStatus('submitted')).toEqual({ submitted: true, reason: null });
  });

  it.each([
    '',
    'exit_bogus',
    'submitted (submitted)',
    'submitted(exit_cost)',
    'skipped (exit_cost)',
  ])('rejects %j with a coded error', (status) => {
    expect(isExitStatus(status)).toBe(false);
    expect(() => parseExitStatus(status)).toThrow(AppError);
  });

  it('autosubmits on every reason except the model asking to exit', () => {
    const without = EXIT_REASONS.filter((reason) => !autosubmitsOn(reason));
    expect(without).toEqual(['exit_command', 'exit_interrupted', 'exit_budget_paused']);
  });

  it('treats only an exact submitted with a non-empty patch as clean', () => {
    expect(isCleanSubmission('submitted', 'diff --git a b')).toBe(true);
    expect(isCleanSubmission('submitted', '  \n')).toBe(false);
    expect(isCleanSubmission('submitted', null)).toBe(false);
    expect(isCleanSubmission('submitted (exit_cost)', 'diff --git a b')).toBe(false);
  });
});

describe('exitReasonOf', () => {
  it('keeps the reason of a loop exit', () => {
    expect(exitReasonOf(new LoopExitError('exit_api', 'retries exhausted'))).toBe('exit_api');
  });

  it('reads the reason an AppError carries in its details', () => {
    const error = new AppError('DEPENDENCY_UNAVAILABLE', 'sandbox gone', {
      details: { exitReason: 'exit_environment_error' },
    });
    expect(exitReasonOf(error)).toBe('exit_environment_error');
  });

  it('maps anything else to exit_error', () => {
    expect(exitReasonOf(new TypeError('boom'))).toBe('exit_error');
    expect(exitReasonOf('a string')).toBe('exit_error');
    expect(exitReasonOf(new AppError('INTERNAL', 'x', { details: { exitReason: 'nope' } }))).toBe(
      'exit_error',
    );
  });

  it('marks a loop exit as not retryable', () => {
    const error = new LoopExitError('exit_cost', 'budget');
    expect(error.retryable).toBe(false);
    expect(error.details['exitReason']).toBe('exit_cost');
  });
});
