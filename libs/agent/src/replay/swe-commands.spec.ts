import { describe, expect, it } from '@jest/globals';
import { commandsOfAnswer } from './swe-actions.js';
import { invokeFormat, renderBundleCall, type SweCommandSpec } from './swe-commands.js';

const arg = (name: string, argumentFormat = '{{value}}') => ({ name, argumentFormat });

/** SWE-agent's `str_replace_editor` as its `edit_anthropic` bundle declares it. */
const EDITOR: SweCommandSpec = {
  name: 'str_replace_editor',
  signature:
    'str_replace_editor <command> <path> [<file_text>] [<view_range>] [<old_str>] [<new_str>] [<insert_line>]',
  endName: null,
  arguments: [
    arg('command'),
    arg('path'),
    arg('file_text', '--file_text {{value}}'),
    arg('old_str', '--old_str {{value}}'),
    arg('new_str', '--new_str {{value}}'),
    arg('insert_line', '--insert_line {{value}}'),
    arg('view_range', "--view_range {{value|join(' ')}}"),
  ],
};

const OPEN: SweCommandSpec = {
  name: 'open',
  signature: 'open "<path>" [<line_number>]',
  endName: null,
  arguments: [arg('path'), arg('line_number')],
};

const EDIT: SweCommandSpec = {
  name: 'edit',
  signature: 'edit <start_line>:<end_line>\n<replacement_text>\nend_of_edit',
  endName: 'end_of_edit',
  arguments: [arg('start_line'), arg('end_line'), arg('replacement_text')],
};

describe('bundle commands rendered as SWE-agent writes them', () => {
  it('fills the signature, quoting strings and formatting each present argument', () => {
    expect(
      renderBundleCall(EDITOR, {
        command: 'str_replace',
        path: '/repo/a.py',
        old_str: 'def f(a: int) -> int',
        new_str: 'def f(a: int) -> int:',
      }),
    ).toBe(
      "str_replace_editor str_replace /repo/a.py   --old_str 'def f(a: int) -> int' --new_str 'def f(a: int) -> int:'",
    );
    expect(renderBundleCall(EDITOR, { command: 'view', path: '/repo', view_range: [3, 9] })).toBe(
      'str_replace_editor view /repo  --view_range 3 9',
    );
    expect(renderBundleCall(OPEN, { path: '/repo/src/calc.py' })).toBe('open "/repo/src/calc.py"');
    expect(renderBundleCall(OPEN, { path: '/repo/a b.py', line_number: 4 })).toBe(
      `open "'/repo/a b.py'" 4`,
    );
  });

  it('writes a command without a signature as its name and arguments, booleans as Python does', () => {
    const edit: SweCommandSpec = {
      name: 'edit',
      signature: null,
      endName: null,
      arguments: [arg('search'), arg('replace'), arg('replace-all')],
    };
    expect(invokeFormat(edit)).toBe('edit {search} {replace} {replace-all} ');
    expect(renderBundleCall(edit, { search: 'a b', replace: 'c', 'replace-all': false })).toBe(
      "edit 'a b' c False",
    );
  });

  it('leaves the body of a multi-line command unquoted and guards it with its end marker', () => {
    const answer = {
      action: null,
      thought: '',
      response: 'fix',
      toolCalls: [
        {
          id: 'c1',
          type: 'function',
          function: {
            name: 'edit',
            arguments: JSON.stringify({ start_line: 4, end_line: 4, replacement_text: "x = 'y'" }),
          },
        },
      ],
    };
    expect(commandsOfAnswer(answer, 'function_calling', [EDIT])).toEqual([
      "edit 4:4 << 'end_of_edit'\nx = 'y'\nend_of_edit",
    ]);
  });
});
