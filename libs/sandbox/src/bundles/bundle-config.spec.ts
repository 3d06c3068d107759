import { describe, expect, it } from '@jest/globals';
import { parseBundleConfig } from './bundle-config.js';

/** SWE-agent's `edit_anthropic` shape: a signature, typed arguments with formats, a state command. */
const EDITOR = `
tools:
  str_replace_editor:
    signature: |
      str_replace_editor <command> <path> [<file_text>] [<view_range>] [<old_str>] [<new_str>] [<insert_line>]
    docstring: >
      Custom editing tool
    arguments:
      - name: command
        type: string
        description: "The commands to run."
        required: true
        enum: ["view", "create", "str_replace", "insert", "undo_edit"]
      - name: path
        type: string
        description: "Absolute path"
        required: true
      - name: view_range
        type: array
        items:
          type: integer
        description: "Lines to show"
        required: false
        argument_format: "--view_range {{value|join(' ')}}"
state_command: "_state_anthropic"
`;

describe('parseBundleConfig', () => {
  it("reads SWE-agent's command shape: signature, arguments with formats and enums, state command", () => {
    const config = parseBundleConfig(EDITOR, 'edit_anthropic/config.yaml');
    expect(config.stateCommand).toBe('_state_anthropic');
    expect(config.envVariables).toEqual({});
    const [editor] = config.commands;
    expect(editor).toMatchObject({
      name: 'str_replace_editor',
      endName: null,
      signature:
        'str_replace_editor <command> <path> [<file_text>] [<view_range>] [<old_str>] [<new_str>] [<insert_line>]',
    });
    expect(editor?.arguments.map((a) => [a.name, a.required, a.argumentFormat])).toEqual([
      ['command', true, '{{value}}'],
      ['path', true, '{{value}}'],
      ['view_range', false, "--view_range {{value|join(' ')}}"],
    ]);
    expect(editor?.arguments[0]?.enum).toEqual([
      'view',
      'create',
      'str_replace',
      'insert',
      'undo_edit',
    ]);
  });

  it('reads a bundle with no commands, commands with no arguments, an end marker and env variables', () => {
    expect(parseBundleConfig('tools: {}\n', 'registry/config.yaml')).toEqual({
      commands: [],
      stateCommand: null,
      envVariables: {},
    });
    const config = parseBundleConfig(
      [
        'tools:',
        '  submit:',
        '    docstring: submits',
        '  edit:',
        '    signature: "edit <start_line>:<end_line>"',
        '    end_name: end_of_edit',
        '    arguments:',
        '      - {name: start_line, type: integer}',
        '      - {name: end_line, type: integer}',
        'env_variables: {WINDOW: 100, CURRENT_LINE: "0"}',
      ].join('\n'),
      'windowed/config.yaml',
    );
    expect(config.commands.map((c) => [c.name, c.endName, c.arguments.length])).toEqual([
      ['submit', null, 0],
      ['edit', 'end_of_edit', 2],
    ]);
    expect(config.envVariables).toEqual({ WINDOW: '100', CURRENT_LINE: '0' });
  });

  it('names the file and the key of a config it cannot use', () => {
    expect(() => parseBundleConfig('state_command: _state\n', 'a/config.yaml')).toThrow(
      'a/config.yaml: tools:',
    );
    expect(() =>
      parseBundleConfig(
        'tools:\n  open:\n    arguments:\n      - {type: string}\n',
        'b/config.yaml',
      ),
    ).toThrow('b/config.yaml: tools.open.arguments.0.name:');
    expect(() => parseBundleConfig('tools: [\n', 'c/config.yaml')).toThrow(
      'c/config.yaml: not valid YAML',
    );
  });
});
