import { describe, expect, it, jest } from '@jest/globals';
import { CONCLUSION_OBSERVATIONS, concludeRun, concludeSubmitted } from './autosubmit.js';
import { EXIT_REASONS, type ExitReason } from './exit-status.js';

const PATCH = 'diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b\n';
const autosubmitting = EXIT_REASONS.filter(
  (reason) =>
    reason !== 'exit_command' && reason !== 'exit_interrupted' && reason !== 'exit_budget_paused',
);

describe('concludeRun', () => {
  it.each(autosubmitting)('submits the current diff after %s', async (reason: ExitReason) => {
    const readDiff = jest.fn(() => Promise.resolve(PATCH));
    const conclusion = await concludeRun(reason, readDiff);
    expect(conclusion).toEqual({
      exitStatus: `submitted (${reason})`,
      submission: PATCH,
      observation: CONCLUSION_OBSERVATIONS.autosubmitted,
    });
    expect(readDiff).toHaveBeenCalledTimes(1);
  });

  it.each(autosubmitting)('keeps the bare %s when the diff is empty', async (reason) => {
    const conclusion = await concludeRun(reason, () => Promise.resolve(' \n\t'));
    expect(conclusion).toEqual({
      exitStatus: reason,
      submission: null,
      observation: CONCLUSION_OBSERVATIONS.exited,
    });
  });

  it.each(['exit_command', 'exit_interrupted', 'exit_budget_paused'] as const)(
    'does not read the diff after %s (the model stopped itself, or the next run goes on)',
    async (reason) => {
      const readDiff = jest.fn(() => Promise.resolve(PATCH));
      const conclusion = await concludeRun(reason, readDiff);
      expect(conclusion.exitStatus).toBe(reason);
      expect(conclusion.submission).toBeNull();
      expect(readDiff).not.toHaveBeenCalled();
    },
  );

  it('falls back to the last known diff when the environment is gone', async () => {
    const conclusion = await concludeRun(
      'exit_environment_error',
      () => Promise.reject(new Error('dead')),
      {
        lastKnownDiff: PATCH,
      },
    );
    expect(conclusion).toEqual({
      exitStatus: 'submitted (exit_environment_error)',
      submission: PATCH,
      observation: CONCLUSION_OBSERVATIONS.environmentDied,
    });
  });

  it('ends with the bare reason when the environment is gone and nothing was known', async () => {
    const conclusion = await concludeRun('exit_cost', () => Promise.reject(new Error('dead')));
    expect(conclusion).toEqual({
      exitStatus: 'exit_cost',
      submission: null,
      observation: 'Exited',
    });
  });
});

describe('concludeSubmitted', () => {
  it('submits the patch and shows it as the observation', () => {
    expect(concludeSubmitted(PATCH)).toEqual({
      exitStatus: 'submitted',
      submission: PATCH,
      observation: PATCH,
    });
  });

  it('records a whitespace-only patch as no submission', () => {
    expect(concludeSubmitted('\n').submission).toBeNull();
  });
});
