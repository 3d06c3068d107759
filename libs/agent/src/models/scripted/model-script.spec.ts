import { AppError } from '@caravel/errors';
import { tool } from '@langchain/core/tools';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { CannedChatModel } from '../canned/canned-chat.model.js';
import { createChatModel } from '../chat-model.factory.js';
import { resolveModel } from '../model-resolution.js';
import { loadModelScript, parseModelScript } from './model-script.js';

const fixtures = fileURLToPath(new URL('../fixtures/', import.meta.url));

const execute = tool(() => 'ok', {
  name: 'execute',
  description: 'Run a shell command',
  schema: z.object({ command: z.string() }),
});

function thrown(fn: () => unknown): AppError {
  try {
    fn();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError');
}

describe('model scripts', () => {
  it('parses a YAML script with positions for every response', () => {
    const responses = loadModelScript(`${fixtures}good-script.yaml`);

    expect(responses).toHaveLength(3);
    expect(responses[0]).toMatchObject({
      content: 'Let me look at the repository.',
      thinking: 'Start by listing the files.',
      toolCalls: [{ name: 'execute', args: { command: 'ls -la' } }],
      usage: { inputTokens: 1200, outputTokens: 80 },
      costUsd: 0.0072,
    });
    expect(responses[0]!.origin).toMatch(/good-script\.yaml:3:5$/);
    expect(responses[1]!.error).toEqual({
      status: 429,
      message: 'slow down',
      retryAfterSeconds: 3,
      timeout: undefined,
    });
    expect(responses[2]!.toolCalls).toEqual([{ name: 'submit', args: {} }]);
  });

  it('reads a JSON list as well', () => {
    const responses = parseModelScript('s.json', '[{"content": "hi"}]');
    expect(responses).toEqual([expect.objectContaining({ content: 'hi', origin: 's.json:1:2' })]);
  });

  it('names the file, line and column of a YAML syntax error', () => {
    const error = thrown(() =>
      parseModelScript('bad.yaml', 'responses:\n  - content: ok\n  - content: [unclosed\n'),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.message).toMatch(/^bad\.yaml:\d+:\d+: cannot parse: /);
    expect(error.details['file']).toBe('bad.yaml');
  });

  it('points a shape error at the offending value', () => {
    const text = 'responses:\n  - content: ok\n  - tool_calls:\n      - args: { command: ls }\n';
    const error = thrown(() => parseModelScript('shape.yaml', text));
    expect(error.message).toMatch(
      /^shape\.yaml:4:9: not a valid model script at responses\[1\]\.tool_calls\[0\]\.name/,
    );
  });

  it('rejects a response that has neither content, tool calls nor an error', () => {
    const error = thrown(() =>
      parseModelScript('empty.yaml', '- usage: { input_tokens: 1, output_tokens: 1 }\n'),
    );
    expect(error.message).toMatch(/^empty\.yaml:1:3: .*content, thinking or tool_calls/);
  });

  it('answers in order through bindTools with deterministic ids, then fails when exhausted', async () => {
    const model = createChatModel(
      resolveModel({ team: { model: 'scripted:good-script.yaml' } }),
      {},
      {
        fileRoot: fixtures,
      },
    );
    const bound = model.bindTools!([execute]);

    const first = await bound.invoke('go');
    expect(first.id).toBe('scripted-1');
    expect(first.tool_calls).toEqual([
      { type: 'tool_call', id: 'scripted-1-1', name: 'execute', args: { command: 'ls -la' } },
    ]);
    expect(first.usage_metadata).toMatchObject({ input_tokens: 1200, output_tokens: 80 });
    expect(first.response_metadata['cost_usd']).toBe(0.0072);
    expect(first.contentBlocks).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'reasoning' })]),
    );

    const limited = await bound.invoke('again').catch((error: unknown) => error);
    expect(limited).toMatchObject({ code: 'RATE_LIMITED', details: { retryAfterSeconds: 3 } });

    const last = await bound.invoke('finish');
    expect(last.tool_calls?.[0]).toMatchObject({ name: 'submit', id: 'scripted-3-1' });

    const exhausted = await bound.invoke('more?').catch((error: unknown) => error);
    expect(exhausted).toBeInstanceOf(AppError);
    expect(exhausted).toMatchObject({
      code: 'PRECONDITION_FAILED',
      details: { reason: 'model-script-exhausted', calls: 4 },
    });
    // The graph bound `execute` only: no ending tool to name, so the hint says how else to end.
    expect((exhausted as AppError).message).toContain(
      'or end the run with an answer without tool calls',
    );
    expect((model as CannedChatModel).calls.map((call) => call.toolNames)).toEqual([
      ['execute'],
      ['execute'],
      ['execute'],
      ['execute'],
    ]);
  });

  it('names the tool that ends the run in the graph that ran out of answers', async () => {
    const ending = (name: string) =>
      tool(() => 'done', { name, description: 'End the run', schema: z.object({}) });
    for (const name of ['submit', 'finish']) {
      const model = new CannedChatModel({ responses: [], file: 'short.yaml', kind: 'scripted' });
      const error = await model
        .bindTools([execute, ending(name)])
        .invoke('more?')
        .catch((caught: unknown) => caught);
      expect((error as AppError).message).toBe(
        `scripted model short.yaml: no answer left for call 1; the file has 0 (add answers, or end the run with a \`${name}\` call)`,
      );
    }
  });

  it('names a missing script file', () => {
    const error = thrown(() => loadModelScript('/nonexistent/script.yaml'));
    expect(error.message).toMatch(/cannot read \/nonexistent\/script\.yaml/);
  });
});
