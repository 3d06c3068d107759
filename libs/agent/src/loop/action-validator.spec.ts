import { describe, expect, it, jest } from '@jest/globals';
import {
  CONTENT_POLICY_ERROR_CODE,
  requeryMessage,
  validateAction,
  type ActionValidatorConfig,
  type SyntaxChecker,
  type SyntaxCheckResult,
} from './action-validator.js';
import { DEFAULT_BLOCKLIST } from './blocklist.js';

function checker(
  result: SyntaxCheckResult,
): SyntaxChecker & { check: jest.Mock<SyntaxChecker['check']> } {
  return { check: jest.fn<SyntaxChecker['check']>(() => Promise.resolve(result)) };
}

function config(syntaxChecker?: SyntaxChecker): ActionValidatorConfig {
  return {
    blocklist: DEFAULT_BLOCKLIST,
    multilineCommands: [{ name: 'edit', endName: 'end_of_edit' }],
    ...(syntaxChecker === undefined ? {} : { syntaxChecker }),
  };
}

describe('validateAction', () => {
  it('accepts a valid action, stripped, after a passing syntax check', async () => {
    const bash = checker({ ok: true });
    const result = await validateAction(
      { ok: true, thought: 'list', action: '  ls -la \n' },
      config(bash),
    );
    expect(result).toEqual({ ok: true, thought: 'list', action: 'ls -la' });
    expect(bash.check).toHaveBeenCalledWith('ls -la');
  });

  it('reports a parse failure as a format failure with its code', async () => {
    const result = await validateAction(
      { ok: false, errorMessage: 'two tool calls', errorCode: 'multiple' },
      config(),
    );
    expect(result).toEqual({
      ok: false,
      failure: { kind: 'format', message: 'two tool calls', errorCode: 'multiple' },
    });
  });

  it('reports a content-policy refusal as its own kind', async () => {
    const result = await validateAction(
      { ok: false, errorMessage: 'refused', errorCode: CONTENT_POLICY_ERROR_CODE },
      config(),
    );
    expect(result).toEqual({ ok: false, failure: { kind: 'content_policy', message: 'refused' } });
  });

  it('blocks before checking syntax, so a blocked command never reaches the sandbox', async () => {
    const bash = checker({ ok: true });
    const result = await validateAction(
      { ok: true, thought: '', action: 'vim x.py' },
      config(bash),
    );
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: 'blocked',
        action: 'vim x.py',
        command: 'vim x.py',
        rule: "starts with 'vim'",
      },
    });
    expect(bash.check).not.toHaveBeenCalled();
  });

  it('reports the output of bash -n for a syntax error', async () => {
    const bash = checker({
      ok: false,
      stdout: '',
      stderr: "bash: line 1: syntax error near unexpected token `('",
    });
    const result = await validateAction({ ok: true, thought: '', action: 'echo (a' }, config(bash));
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: 'syntax',
        action: 'echo (a',
        stdout: '',
        stderr: "bash: line 1: syntax error near unexpected token `('",
      },
    });
  });

  it('reports an unterminated multi-line command without checking syntax', async () => {
    const bash = checker({ ok: true });
    const result = await validateAction(
      { ok: true, thought: '', action: 'edit 1:1\nx = 1' },
      config(bash),
    );
    expect(result).toEqual({
      ok: false,
      failure: {
        kind: 'multiline',
        action: 'edit 1:1\nx = 1',
        command: 'edit',
        endName: 'end_of_edit',
        line: 1,
      },
    });
    expect(bash.check).not.toHaveBeenCalled();
  });

  it('checks the guarded command, heredoc marker included', async () => {
    const bash = checker({ ok: true });
    await validateAction(
      { ok: true, thought: '', action: 'edit 1:1\nx = 1\nend_of_edit' },
      config(bash),
    );
    expect(bash.check).toHaveBeenCalledWith("edit 1:1 << 'end_of_edit'\nx = 1\nend_of_edit");
  });

  it('passes the exit action through untouched', async () => {
    const bash = checker({ ok: true });
    expect(
      await validateAction({ ok: true, thought: 'done', action: ' exit ' }, config(bash)),
    ).toEqual({
      ok: true,
      thought: 'done',
      action: 'exit',
    });
    expect(bash.check).not.toHaveBeenCalled();
  });
});

describe('requeryMessage', () => {
  it('renders each failure kind with its details', () => {
    expect(
      requeryMessage({ kind: 'format', message: 'no tool call', errorCode: 'missing' }),
    ).toContain('no tool call');
    expect(
      requeryMessage({
        kind: 'blocked',
        action: 'vim a',
        command: 'vim a',
        rule: "starts with 'vim'",
      }),
    ).toContain("'vim a' is not supported");
    const syntax = requeryMessage({ kind: 'syntax', action: 'for', stdout: 'OUT', stderr: 'ERR' });
    expect(syntax).toContain('ERR');
    expect(syntax).toContain('OUT');
    expect(
      requeryMessage({
        kind: 'multiline',
        action: 'edit',
        command: 'edit',
        endName: 'end_of_edit',
        line: 1,
      }),
    ).toContain("'end_of_edit'");
  });

  it('asks for a resample (no message) after a content-policy refusal', () => {
    expect(requeryMessage({ kind: 'content_policy', message: 'refused' })).toBeNull();
  });
});
