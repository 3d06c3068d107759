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

  it('says GitHub refused changes to workflow files, which ones, that the commits must be rewritten, and the two ways on', () => {
    const summary =
      'The changes are not in a pull request: their last publish failed: GitHub refused the push ' +
      "because it changes workflow files (.github/workflows/ci.yml) and Caravel's GitHub App may " +
      "not change workflow files (FORBIDDEN). They are kept in the thread's sandbox.";
    const unpublished = { reason: 'workflow_permission', files: ['.github/workflows/ci.yml'] };

    const text = failureText('submitted (exit_unpublished)', summary, unpublished);

    expect(text).toMatch(
      /^Caravel wasn't able to finish this task: GitHub refused to take its changes, because they change workflow files .*\(submitted \(exit_unpublished\)\)\.\n/,
    );
    expect(text).toContain(
      "\nThe changes it made are kept in the thread's sandbox, in commits that were not pushed.\n",
    );
    expect(text).toContain('\nWorkflow files changed: `.github/workflows/ci.yml`\n');
    expect(text).toContain('"Workflows: Read and write"');
    expect(text).toContain('"The GitHub App" in Caravel\'s docs/deployment.md');
    expect(text).toContain('`caravel github-app manifest --workflows`');
    expect(text).toContain('without touching `.github/workflows/`');
    expect(text).toContain(
      'The agent must then rewrite its unpushed commits so that none of them changes a workflow ' +
        'file: GitHub checks every commit pushed, so changing the files back in a new commit is ' +
        'not enough.',
    );
    expect(text).not.toMatch(/FORBIDDEN|Last known state/);
  });

  it('takes the reason from the run, never from its summary text', () => {
    const posing =
      'The changes are not in a pull request (workflow_permission): the model wrote this';

    expect(failureText('submitted (exit_unpublished)', posing)).toMatch(
      /\nLast known state: The changes are not in a pull request \(workflow_permission\): the model wrote this\n/,
    );
    // A reason without a text of its own, or on another ending, gets the usual reply.
    const ci = { reason: 'push_changes_ci', files: ['.github/actions/a.yml'] };
    expect(failureText('submitted (exit_unpublished)', 'x', ci)).toMatch(/\nLast known state: x\n/);
    const workflows = { reason: 'workflow_permission', files: [] };
    expect(failureText('submitted (exit_cost)', 'x', workflows)).toMatch(/cost budget/);
    expect(failureText('submitted (exit_unpublished)', 'x', workflows)).not.toContain(
      'Workflow files changed',
    );
  });

  it('shows file names in code, their odd characters as ?, at most five of them and 100 characters each', () => {
    const files = [
      '.github/workflows/`</script>` <!channel> @here *bold*\n[x](https://evil).yml',
      `.github/workflows/${'a'.repeat(150)}.yml`,
      ...Array.from({ length: 6 }, (_, i) => `.github/workflows/w${i}.yml`),
    ];

    const text = failureText('submitted (exit_unpublished)', '', {
      reason: 'workflow_permission',
      files,
    });

    const line = text.split('\n').find((l) => l.startsWith('Workflow files changed: '));
    expect(line).toBe(
      'Workflow files changed: ' +
        '`.github/workflows/??/script?? ??channel? ?here ?bold???x??https?//evil?.yml`, ' +
        `\`.github/workflows/${'a'.repeat(81)}…\`, ` +
        '`.github/workflows/w0.yml`, `.github/workflows/w1.yml`, `.github/workflows/w2.yml` ' +
        'and 3 more',
    );
  });
});
