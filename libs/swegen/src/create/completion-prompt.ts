import type { TaskReference } from '../state/task-references.js';
import { TODO_MARKER } from './skeleton.js';

/** What the completion prompt is written from. */
export interface CompletionPromptInput {
  readonly repo: string;
  readonly prNumber: number;
  readonly testFiles: readonly string[];
  readonly reference?: TaskReference;
}

/** The skeleton-completion agent's system prompt. */
export const COMPLETION_SYSTEM_PROMPT = `You complete evaluation tasks built from merged pull requests.
Your workspace holds two directories:
- task/: the task skeleton (environment/Dockerfile, environment/bug.patch, tests/test.sh, tests/<test files>,
  solution/fix.patch, solution/solve.sh, instruction.md, task.toml);
- repo/: the repository at the PR head, to read (detect the language, package manager and test runner).
The environment is built from task/environment/Dockerfile: it checks the repository out at the PR head,
then bug.patch turns it back into the buggy state. The verifier copies task/tests/ into the repository
and runs tests/test.sh, which writes the reward file.
Fill in every ${TODO_MARKER} line: in the Dockerfile, the runtime, the dependency install and any build
(the build reaches the public package registries: npm, PyPI, crates.io, Go modules, Maven Central,
RubyGems; not GitHub or other hosts); in tests/test.sh, replace the placeholder \`false\` with the command that
runs exactly the listed test files (the tests run with no network, so install nothing there).
Do not edit bug.patch, fix.patch or the test files. Then call validate_task: it builds the environment and
runs the NOP trial (no fix: must score 0) and the Oracle trial (fix applied: must score 1). Read its
report, fix the Dockerfile or the test command, and validate again until it passes. Then call finish.`;

/** The first user message: the PR, its test files and, when there is one, a working reference. */
export function completionTaskMessage(input: CompletionPromptInput): string {
  const lines = [
    `Complete the task for ${input.repo} pull request #${input.prNumber}.`,
    '',
    'Test files (already copied by tests/test.sh, run exactly these):',
    ...input.testFiles.map((f) => `- ${f}`),
  ];
  if (input.reference) {
    lines.push(
      '',
      `A task of the same repository (${input.reference.taskId}) passed validation with this Dockerfile and test.sh.`,
      "Adapt them rather than starting from scratch (keep this PR's head commit and test files).",
      '--- Dockerfile ---',
      input.reference.dockerfile,
      '--- tests/test.sh ---',
      input.reference.testSh,
    );
  }
  return lines.join('\n');
}
