import { describe, expect, it } from '@jest/globals';
import { failureText } from './notice-texts.js';

describe('failureText', () => {
  it('says why a run stopped, that its autosubmitted changes are kept, and its last state', () => {
    expect(failureText('submitted (exit_cost)', 'Exited (autosubmitted): the API hung up')).toBe(
      [
        "Caravel wasn't able to finish this task: it reached its limit of model calls or its " +
          'cost budget (submitted (exit_cost)).',
        "The changes it made are kept in the thread's sandbox.",
        'Last known state: Exited (autosubmitted): the API hung up',
        'Reply here to try again.',
      ].join('\n'),
    );
    // SWE-agent's bare exit observation adds nothing to that.
    expect(failureText('submitted (exit_forfeit)', 'Exited (autosubmitted)')).toBe(
      [
        "Caravel wasn't able to finish this task: it gave up (submitted (exit_forfeit)).",
        "The changes it made are kept in the thread's sandbox.",
        'Reply here to try again.',
      ].join('\n'),
    );
  });

  it('names no kept changes for a run that stopped with none, and no reason it does not know', () => {
    expect(failureText('exit_api', '')).toBe(
      [
        "Caravel wasn't able to finish this task: the model's API kept failing (exit_api).",
        'Reply here to try again.',
      ].join('\n'),
    );
    expect(failureText('exit_something_new', 'x')).toMatch(
      /^Caravel wasn't able to finish this task \(exit_something_new\)\.\nLast known state: x/,
    );
  });

  it('says GitHub refused changes to workflow files, which ones, and the two ways on', () => {
    const summary =
      'The changes are not in a pull request (workflow_permission): their last publish failed: ' +
      'GitHub refused the push because it changes workflow files (.github/workflows/ci.yml) and ' +
      "Caravel's GitHub App may not change workflow files (FORBIDDEN). They are kept in the thread's sandbox.";

    const text = failureText('submitted (exit_unpublished)', summary);

    expect(text).toMatch(
      /^Caravel wasn't able to finish this task: GitHub refused to take its changes, because they change workflow files .*\(submitted \(exit_unpublished\)\)\.\n/,
    );
    expect(text).toContain("\nThe changes it made are kept in the thread's sandbox.\n");
    expect(text).toContain('\nWorkflow files changed: .github/workflows/ci.yml\n');
    expect(text).toContain('"Workflows: Read and write"');
    expect(text).toContain('`caravel github-app manifest --workflows`');
    expect(text).toContain('without touching `.github/workflows/`');
    expect(text).not.toMatch(/FORBIDDEN|Last known state/);
    // Another unpublished run, or a reason without a text of its own, gets the usual reply.
    expect(
      failureText(
        'submitted (exit_unpublished)',
        'The changes are not in a pull request (push_changes_ci): x',
      ),
    ).toMatch(/\nLast known state: The changes are not in a pull request \(push_changes_ci\): x\n/);
  });
});
