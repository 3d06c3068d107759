import { describe, it, expect } from '@jest/globals';
import { AppError } from '@caravel/errors';
import { z } from 'zod';
import { toolErrorsMiddleware } from './tool-errors.middleware.js';
import { recordingTool, runAgent, throwingTool, toolMessages } from './testing/agent-harness.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';
import { createMiddleware } from 'langchain';

/** Any wrapToolCall middleware makes LangChain rethrow tool errors; this one does nothing else. */
const passThrough = createMiddleware({
  name: 'pass',
  wrapToolCall: (req, handler) => handler(req),
});

describe('toolErrorsMiddleware', () => {
  it('turns a throwing tool into an error ToolMessage carrying the code and text', async () => {
    const failing = throwingTool('execute', new AppError('DEPENDENCY_UNAVAILABLE', 'sandbox gone'));
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'execute', args: {} }]),
      textTurn('ok'),
    ]);

    const out = await runAgent(model, [failing], [toolErrorsMiddleware(), passThrough]);

    const [answer] = toolMessages(out.messages);
    expect(answer?.status).toBe('error');
    expect(answer?.content).toBe('Error: execute failed: DEPENDENCY_UNAVAILABLE: sandbox gone');
    expect(out.messages.at(-1)?.content).toBe('ok');
  });

  it('without it the same failure crashes the run (the middleware is what prevents that)', async () => {
    const failing = throwingTool('execute', new Error('boom'));
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'execute', args: {} }]),
      textTurn('ok'),
    ]);

    await expect(runAgent(model, [failing], [passThrough])).rejects.toThrow('boom');
  });

  it('surfaces arguments that fail the tool schema as an error message too', async () => {
    const read = recordingTool('read_file', z.object({ file_path: z.string() }));
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'read_file', args: { file_path: 42 } }]),
      textTurn('ok'),
    ]);

    const out = await runAgent(model, [read.tool], [toolErrorsMiddleware(), passThrough]);

    expect(read.received).toEqual([]);
    const [answer] = toolMessages(out.messages);
    expect(answer?.status).toBe('error');
    expect(answer?.content).toMatch(/read_file/);
  });

  it('clips very long error text and says how much was clipped', async () => {
    const failing = throwingTool('execute', new Error('e'.repeat(50)));
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'execute', args: {} }]),
      textTurn('ok'),
    ]);

    const out = await runAgent(model, [failing], [toolErrorsMiddleware({ maxErrorChars: 20 })]);

    expect(toolMessages(out.messages)[0]?.content).toMatch(/clipped: \d+ more characters/);
  });
});
