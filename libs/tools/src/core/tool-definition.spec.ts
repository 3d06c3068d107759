import { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import { ToolMessage } from '@langchain/core/messages';
import { z } from 'zod';

import { toLangChainTools } from './langchain-tool.js';
import { defineTool } from './tool-definition.js';

function echoTool(run: (text: string) => Promise<string> = async (text) => text) {
  return defineTool({
    name: 'echo',
    description: 'Echo the text.',
    effect: 'read',
    input: z.strictObject({ text: z.string().min(1), times: z.number().int().optional() }),
    run: async (input) => ({ echoed: await run(input.text) }),
    observe: (output) => `echo: ${output.echoed}`,
  });
}

describe('defineTool', () => {
  it('validates input and answers with a typed output and its observation', async () => {
    const result = await echoTool().invoke({ text: 'hi' });
    expect(result).toEqual({ ok: true, output: { echoed: 'hi' }, observation: 'echo: hi' });
  });

  it('turns invalid input into a BAD_REQUEST result naming each bad field', async () => {
    const result = await echoTool().invoke({ text: 3, times: 1.5, extra: true });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('BAD_REQUEST');
    expect(result.observation).toContain('Invalid arguments for echo');
    expect(result.observation).toContain('text:');
    expect(result.observation).toContain('times:');
    expect(result.observation).toContain('extra');
  });

  it('treats a missing argument object as empty input', async () => {
    const result = await echoTool().invoke(undefined);
    expect(result).toMatchObject({ ok: false, error: { code: 'BAD_REQUEST' } });
  });

  it('shows coded, non-retryable errors to the model and rethrows the rest', async () => {
    const notFound = echoTool(async () => {
      throw new AppError('NOT_FOUND', 'gone');
    });
    expect(await notFound.invoke({ text: 'a' })).toMatchObject({
      ok: false,
      observation: 'Error (NOT_FOUND): gone',
    });
    const down = echoTool(async () => {
      throw new AppError('DEPENDENCY_UNAVAILABLE', 'sandbox down');
    });
    await expect(down.invoke({ text: 'a' })).rejects.toThrow('sandbox down');
    const bug = echoTool(async () => {
      throw new TypeError('bug');
    });
    await expect(bug.invoke({ text: 'a' })).rejects.toThrow('bug');
  });
});

describe('toLangChainTools', () => {
  const call = (args: unknown) => ({
    type: 'tool_call' as const,
    id: 'call-1',
    name: 'echo',
    args,
  });

  it('answers a tool call with a ToolMessage carrying the typed output as artifact', async () => {
    const [tool] = toLangChainTools([echoTool()]);
    const message = await tool!.invoke(call({ text: 'hi' }));
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message).toMatchObject({
      content: 'echo: hi',
      status: 'success',
      tool_call_id: 'call-1',
      artifact: { echoed: 'hi' },
    });
  });

  it('tells the tool which call it runs for', async () => {
    const calls: unknown[] = [];
    const tool = defineTool({
      name: 'echo',
      description: 'Echo the text.',
      effect: 'read',
      input: z.strictObject({ text: z.string() }),
      run: (_input, context) => Promise.resolve(calls.push(context)),
      observe: () => 'ok',
    });
    const [adapted] = toLangChainTools([tool]);
    await adapted!.invoke(call({ text: 'hi' }));
    expect(calls).toEqual([{ callId: 'call-1' }]);
  });

  it('answers schema-invalid arguments with an error ToolMessage instead of throwing', async () => {
    const [tool] = toLangChainTools([echoTool()]);
    const message = await tool!.invoke(call({ text: 42 }));
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message).toMatchObject({ status: 'error', tool_call_id: 'call-1' });
    expect((message as ToolMessage).text).toContain('Invalid arguments for echo');
  });

  it('exposes the zod schema so the model sees the JSON Schema', () => {
    const [tool] = toLangChainTools([echoTool()]);
    expect(tool!.name).toBe('echo');
    expect(z.toJSONSchema(tool!.schema)).toMatchObject({ required: ['text'] });
  });
});
