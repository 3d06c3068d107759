import { describe, it, expect } from '@jest/globals';
import { DEFAULT_BLOCKLIST, isLoopExit, type SyntaxChecker } from '@caravel/agent';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { findAppError } from './error-inspection.js';
import { requeryMiddleware } from './requery.middleware.js';
import { recordingTool, runAgent } from './testing/agent-harness.js';
import { RecordingEvents } from './testing/recording-ports.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

const executeTool = () =>
  recordingTool(
    'execute',
    z.strictObject({ command: z.string(), timeout_seconds: z.number().optional() }),
  );

/** A syntax checker that answers from a table and fails the test on any other command. */
function strictChecker(known: Record<string, boolean>): SyntaxChecker & { checked: string[] } {
  const checked: string[] = [];
  return {
    checked,
    check(command) {
      checked.push(command);
      const ok = known[command];
      if (ok === undefined) throw new Error(`unexpected syntax check of ${command}`);
      return Promise.resolve(
        ok ? { ok: true } : { ok: false, stdout: '', stderr: `bash: syntax error near ${command}` },
      );
    },
  };
}

function middleware(events: RecordingEvents, syntaxChecker?: SyntaxChecker) {
  return requeryMiddleware({
    validator: {
      blocklist: DEFAULT_BLOCKLIST,
      multilineCommands: [],
      ...(syntaxChecker ? { syntaxChecker } : {}),
    },
    events,
  });
}

function textOf(message: BaseMessage | undefined): string {
  return typeof message?.content === 'string' ? message.content : JSON.stringify(message?.content);
}

async function failureOf(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe('requeryMiddleware', () => {
  it('asks again after a call to an unknown tool and keeps the failed answer out of the history', async () => {
    const events = new RecordingEvents();
    const execute = executeTool();
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'run_shell', args: { command: 'ls' } }], 'listing'),
      toolTurn([{ name: 'execute', args: { command: 'ls' } }]),
      textTurn('done'),
    ]);

    const out = await runAgent(model, [execute.tool], [middleware(events)]);

    expect(execute.received).toEqual([{ command: 'ls' }]);
    // The requery shows the failed answer, answered by an error naming the real tools.
    const requery = model.calls[1] ?? [];
    const answer = requery.at(-1);
    expect(answer).toBeInstanceOf(ToolMessage);
    expect(textOf(answer)).toMatch(/no tool named run_shell.*execute/s);
    // The conversation the model sees afterwards has no trace of the mistake.
    const later = model.calls[2] ?? [];
    expect(later.some((m) => textOf(m).includes('run_shell'))).toBe(false);
    expect(out.messages.filter((m) => AIMessage.isInstance(m))).toHaveLength(2);
    expect(events.events).toEqual([
      expect.objectContaining({ type: 'requery', attempt: 1, failure: 'format' }),
    ]);
  });

  it('requeries a blocked command with the rule that blocked it', async () => {
    const events = new RecordingEvents();
    const execute = executeTool();
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'execute', args: { command: 'vim src/a.js' } }]),
      toolTurn([{ name: 'execute', args: { command: 'cat src/a.js' } }]),
      textTurn('done'),
    ]);

    await runAgent(model, [execute.tool], [middleware(events)]);

    expect(execute.received).toEqual([{ command: 'cat src/a.js' }]);
    expect(textOf(model.calls[1]?.at(-1))).toContain('vim');
    expect(events.events[0]).toMatchObject({ type: 'requery', failure: 'blocked' });
  });

  it('requeries a bash syntax error found by bash -n, without running the command', async () => {
    const events = new RecordingEvents();
    const execute = executeTool();
    const checker = strictChecker({ 'if true; then echo x': false, 'echo fixed': true });
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'execute', args: { command: 'if true; then echo x' } }]),
      toolTurn([{ name: 'execute', args: { command: 'echo fixed' } }]),
      textTurn('done'),
    ]);

    await runAgent(model, [execute.tool], [middleware(events, checker)]);

    expect(execute.received).toEqual([{ command: 'echo fixed' }]);
    expect(checker.checked).toEqual(['if true; then echo x', 'echo fixed']);
    expect(textOf(model.calls[1]?.at(-1))).toContain('syntax error');
    expect(events.events[0]).toMatchObject({ type: 'requery', failure: 'syntax' });
  });

  it('requeries a call that misses a required argument', async () => {
    const events = new RecordingEvents();
    const execute = executeTool();
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'execute', args: { timeout_seconds: 3 } }]),
      toolTurn([{ name: 'execute', args: { command: 'pwd' } }]),
      textTurn('done'),
    ]);

    await runAgent(model, [execute.tool], [middleware(events)]);

    expect(execute.received).toEqual([{ command: 'pwd' }]);
    expect(textOf(model.calls[1]?.at(-1))).toMatch(/arguments of execute are not valid: command/);
  });

  it('accepts a call that leaves out an argument with a default, and refuses an unknown one', async () => {
    const events = new RecordingEvents();
    const edit = recordingTool(
      'edit_file',
      z.strictObject({
        path: z.string(),
        old_string: z.string(),
        new_string: z.string(),
        replace_all: z.boolean().default(false),
      }),
    );
    const args = { path: 'a.js', old_string: 'x', new_string: 'y' };
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'edit_file', args: { ...args, force: true } }]),
      toolTurn([{ name: 'edit_file', args }]),
      textTurn('done'),
    ]);

    await runAgent(model, [edit.tool], [middleware(events)]);

    expect(edit.received).toEqual([{ ...args, replace_all: false }]);
    expect(textOf(model.calls[1]?.at(-1))).toMatch(/unknown argument\(s\) force/);
    expect(events.events).toHaveLength(1);
  });

  it('ends the run with exit_format after the third unusable answer, before any tool runs', async () => {
    const events = new RecordingEvents();
    const execute = executeTool();
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'execute', args: { command: 'vim a' } }]),
      toolTurn([{ name: 'nope', args: {} }]),
      toolTurn([{ name: 'execute', args: { command: 'nano b' } }]),
      toolTurn([{ name: 'execute', args: { command: 'ls' } }]),
    ]);

    const error = await failureOf(runAgent(model, [execute.tool], [middleware(events)]));

    const exit = findAppError(error);
    expect(isLoopExit(exit) && exit.reason).toBe('exit_format');
    expect(model.calls).toHaveLength(3);
    expect(execute.received).toEqual([]);
    expect(events.events.map((e) => (e.type === 'requery' ? e.attempt : 0))).toEqual([1, 2, 3]);
  });

  it('each requery shows only the latest failure, never the earlier ones', async () => {
    const events = new RecordingEvents();
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'first_wrong', args: {} }]),
      toolTurn([{ name: 'second_wrong', args: {} }]),
      toolTurn([{ name: 'execute', args: { command: 'ls' } }]),
      textTurn('done'),
    ]);

    await runAgent(model, [executeTool().tool], [middleware(events)]);

    const third = (model.calls[2] ?? []).map((m) => JSON.stringify(m.toDict()));
    expect(third.some((text) => text.includes('second_wrong'))).toBe(true);
    expect(third.some((text) => text.includes('first_wrong'))).toBe(false);
  });
});
