import { describe, expect, it } from '@jest/globals';
import { guardMultilineCommands } from './multiline-guard.js';

const EDIT = { name: 'edit', endName: 'end_of_edit' };

describe('guardMultilineCommands', () => {
  it('feeds the body of a multi-line command to the tool as a quoted heredoc', () => {
    const result = guardMultilineCommands('edit 4:4\n    return a / b\nend_of_edit', [EDIT]);
    expect(result).toEqual({
      ok: true,
      action: "edit 4:4 << 'end_of_edit'\n    return a / b\nend_of_edit",
    });
  });

  it('keeps text before and after the block as it is', () => {
    const action = 'cd /repo\nedit 1:1\nx = 1\nend_of_edit\nls';
    expect(guardMultilineCommands(action, [EDIT])).toEqual({
      ok: true,
      action: "cd /repo\nedit 1:1 << 'end_of_edit'\nx = 1\nend_of_edit\nls",
    });
  });

  it('does not add a second heredoc marker', () => {
    const action = "edit 1:1 << 'end_of_edit'\nx\nend_of_edit";
    expect(guardMultilineCommands(action, [EDIT])).toEqual({ ok: true, action });
  });

  it('guards each of several blocks', () => {
    const action = 'edit 1:1\na\nend_of_edit\nedit 3:3\nb\nend_of_edit';
    const result = guardMultilineCommands(action, [EDIT]);
    expect(result.ok && result.action.match(/<< 'end_of_edit'/g)).toHaveLength(2);
  });

  it('reports a block without its end marker, with its line', () => {
    expect(guardMultilineCommands('ls\nedit 2:3\nnew text', [EDIT])).toEqual({
      ok: false,
      command: 'edit',
      endName: 'end_of_edit',
      line: 2,
    });
  });

  it('leaves commands that merely start with the same letters alone', () => {
    expect(guardMultilineCommands('editorconfig-check', [EDIT])).toEqual({
      ok: true,
      action: 'editorconfig-check',
    });
  });

  it('passes actions through when no multi-line commands are configured', () => {
    expect(guardMultilineCommands('edit 1:1', [])).toEqual({ ok: true, action: 'edit 1:1' });
  });
});
