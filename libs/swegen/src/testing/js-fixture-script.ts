import { PR_EVALUATION_TOOL } from '../create/pr-evaluation.js';

/**
 * A scripted model (the YAML `scripted:` format) for the JavaScript fixture: the PR evaluation,
 * then the completion agent filling the Dockerfile and the test command, validating, finishing.
 */
export function jsFixtureModelScript(): string {
  const evaluation = {
    is_substantial: true,
    reason: 'Changes slugify and whitespace handling across three modules.',
    instruction:
      'slugify("Hello World!") returns "hello-world-" with a trailing dash; it should return "hello-world". Runs of spaces inside a string should also collapse to one space (collapse("a   b") should be "a b"), and collapse should be exported from /app/src/src/index.js.',
    difficulty: 'easy',
    category: 'bugfix',
    tags: ['javascript', 'strings', 'slugify'],
  };
  const responses = [
    { content: 'Evaluating the PR.', tool_calls: [{ name: PR_EVALUATION_TOOL, args: evaluation }] },
    {
      content: 'Looking at the project.',
      tool_calls: [{ name: 'execute', args: { command: 'cat repo/package.json && ls repo/test' } }],
    },
    {
      content: 'No dependencies: node is enough.',
      tool_calls: [
        {
          name: 'edit_file',
          args: {
            path: 'task/environment/Dockerfile',
            old_string:
              "# TODO(swegen): install the language runtime, the project's dependencies, and build it.",
            new_string: 'RUN node --version',
          },
        },
      ],
    },
    {
      content: 'Setting the test command.',
      tool_calls: [
        {
          name: 'edit_file',
          args: {
            path: 'task/tests/test.sh',
            old_string: '\nfalse\n',
            new_string: '\nnode --test test/slugify.test.js\n',
          },
        },
      ],
    },
    { content: 'Validating.', tool_calls: [{ name: 'validate_task', args: {} }] },
    {
      content: 'NOP 0 and Oracle 1.',
      tool_calls: [{ name: 'finish', args: { summary: 'validated' } }],
    },
  ];
  return JSON.stringify({ responses }, null, 2);
}
