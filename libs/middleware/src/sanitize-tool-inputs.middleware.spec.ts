import { describe, it, expect } from '@jest/globals';
import { AIMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { sanitizeToolInputsMiddleware } from './sanitize-tool-inputs.middleware.js';
import { recordingTool, runAgent, toolMessages } from './testing/agent-harness.js';
import { ScriptedChatModel, textTurn, toolTurn } from './testing/scripted-chat-model.js';

const editSchema = z.object({ path: z.string(), options: z.object({ force: z.boolean() }) });

describe('sanitizeToolInputsMiddleware', () => {
  it('removes NUL bytes and decodes objects sent as JSON strings before the tool runs', async () => {
    const edit = recordingTool('edit_file', editSchema);
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'edit_file', args: { path: 'a\u0000.ts', options: '{"force":true}' } }]),
      textTurn('done'),
    ]);

    await runAgent(model, [edit.tool], [sanitizeToolInputsMiddleware()]);

    expect(edit.received).toEqual([{ path: 'a.ts', options: { force: true } }]);
  });

  it('refuses an oversize payload with a clear tool error instead of running the tool', async () => {
    const write = recordingTool('write_file', z.object({ content: z.string() }));
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'write_file', args: { content: 'x'.repeat(2000) } }]),
      textTurn('done'),
    ]);

    const out = await runAgent(
      model,
      [write.tool],
      [sanitizeToolInputsMiddleware({ maxArgBytes: 1000 })],
    );

    expect(write.received).toEqual([]);
    const [answer] = toolMessages(out.messages);
    expect(answer?.status).toBe('error');
    expect(answer?.content).toMatch(/above the limit of 1000/);
  });

  it('answers a call whose arguments are not JSON with an error and lets the run continue', async () => {
    const read = recordingTool('read_file', z.object({ file_path: z.string() }));
    const broken = new AIMessage({
      content: '',
      invalid_tool_calls: [
        { name: 'read_file', args: '{"file_path": ', id: 'bad-1', error: 'Unexpected end of JSON' },
      ],
    });
    const model = new ScriptedChatModel([broken, textTurn('recovered')]);

    const out = await runAgent(model, [read.tool], [sanitizeToolInputsMiddleware()]);

    expect(read.received).toEqual([]);
    const [answer] = toolMessages(out.messages);
    expect(answer?.tool_call_id).toBe('bad-1');
    expect(answer?.status).toBe('error');
    expect(answer?.content).toMatch(/could not be parsed/);
    expect(out.messages.at(-1)?.content).toBe('recovered');
  });

  it('leaves well-formed arguments exactly as they were', async () => {
    const edit = recordingTool('edit_file', editSchema);
    const args = { path: 'src/a.ts', options: { force: false } };
    const model = new ScriptedChatModel([
      toolTurn([{ name: 'edit_file', args }]),
      textTurn('done'),
    ]);

    await runAgent(model, [edit.tool], [sanitizeToolInputsMiddleware()]);

    expect(edit.received).toEqual([args]);
  });
});
