import { AppError } from '@caravel/errors';
import { startFakeAnthropic, startFakeOpenAi, type FakeLlmServer } from '@caravel/testing';
import { AIMessageChunk, HumanMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { tool } from '@langchain/core/tools';
import { z } from 'zod';
import { createChatModel, type ChatModelOptions } from './chat-model.factory.js';
import { toModelError } from './model-errors.js';
import { resolveModel } from './model-resolution.js';

const execute = tool(() => 'ok', {
  name: 'execute',
  description: 'Run a shell command in the sandbox',
  schema: z.object({ command: z.string() }),
});

const credentials = { anthropicApiKey: 'sk-ant-test', openaiApiKey: 'sk-test' };

async function failureOf(promise: Promise<unknown>, provider: string): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    return toModelError(error, provider);
  }
  throw new Error('expected the model call to fail');
}

interface Case {
  provider: 'openai' | 'anthropic';
  model: string;
  start: () => Promise<FakeLlmServer>;
  options: (fake: FakeLlmServer) => ChatModelOptions;
  toolsOf: (body: Record<string, unknown>) => string[];
  /**
   * Under Jest's module sandbox the OpenAI SDK cannot recognise its own timeout abort (the
   * DOMException comes from another realm), so the timeout surfaces as a connection error. In
   * plain Node it is a TimeoutError (covered in model-errors.spec.ts). Either way it is retryable.
   */
  timeoutCode: 'TIMEOUT' | 'DEPENDENCY_UNAVAILABLE';
}

const cases: Case[] = [
  {
    provider: 'openai',
    model: 'gpt-5',
    start: startFakeOpenAi,
    options: (fake) => ({ openaiBaseUrl: fake.baseUrl }),
    toolsOf: (body) =>
      (body['tools'] as { function: { name: string } }[]).map((t) => t.function.name),
    timeoutCode: 'DEPENDENCY_UNAVAILABLE',
  },
  {
    provider: 'anthropic',
    model: 'claude-opus-4-6',
    start: startFakeAnthropic,
    options: (fake) => ({ anthropicBaseUrl: fake.baseUrl }),
    toolsOf: (body) => (body['tools'] as { name: string }[]).map((t) => t.name),
    timeoutCode: 'TIMEOUT',
  },
];

describe.each(cases)('createChatModel against the fake $provider API', (c) => {
  let fake: FakeLlmServer;
  let model: BaseChatModel;

  beforeEach(async () => {
    fake = await c.start();
    const resolved = resolveModel({ team: { model: c.model, effort: 'low' } });
    model = createChatModel(resolved, credentials, { ...c.options(fake), timeoutMs: 2_000 });
  });

  afterEach(async () => {
    await fake.close();
  });

  it('runs a tool-calling exchange through bindTools + invoke', async () => {
    fake.enqueue({
      text: 'Listing files.',
      toolCalls: [{ name: 'execute', args: { command: 'ls -la' } }],
      usage: { inputTokens: 120, outputTokens: 30 },
    });
    const bound = model.bindTools?.([execute]);
    const reply = await bound!.invoke([new HumanMessage('what is here?')]);

    expect(reply.tool_calls).toEqual([
      expect.objectContaining({ name: 'execute', args: { command: 'ls -la' } }),
    ]);
    expect(reply.usage_metadata).toMatchObject({ input_tokens: 120, output_tokens: 30 });
    expect(fake.requests).toHaveLength(1);
    const body = fake.requests[0]!.body!;
    expect(body['model']).toBe(c.model);
    expect(c.toolsOf(body)).toEqual(['execute']);
  });

  it('sends the resolved reasoning effort', async () => {
    fake.enqueue({ text: 'ok' });
    await model.invoke('hi');
    const body = fake.requests[0]!.body!;
    if (c.provider === 'openai') expect(body['reasoning_effort']).toBe('low');
    else expect(body['output_config']).toMatchObject({ effort: 'low' });
  });

  it('streams text and tool calls', async () => {
    fake.enqueue({
      text: 'Running the tests now.',
      toolCalls: [{ name: 'execute', args: { command: 'npm test' } }],
    });
    const stream = await model.bindTools!([execute]).stream('run the tests');
    let merged: AIMessageChunk | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      merged = merged === undefined ? chunk : merged.concat(chunk);
    }

    expect(chunks).toBeGreaterThan(2);
    expect(fake.requests[0]!.stream).toBe(true);
    expect(merged!.text).toBe('Running the tests now.');
    expect(merged!.tool_calls).toEqual([
      expect.objectContaining({ name: 'execute', args: { command: 'npm test' } }),
    ]);
  });

  it('surfaces a 500 as a retryable DEPENDENCY_UNAVAILABLE naming the status', async () => {
    fake.enqueue({ error: { status: 500, message: 'upstream exploded' } });
    const error = await failureOf(model.invoke('hi'), c.provider);

    expect(error.code).toBe('DEPENDENCY_UNAVAILABLE');
    expect(error.retryable).toBe(true);
    expect(error.details).toMatchObject({ provider: c.provider, status: 500 });
    expect(error.message).toContain('upstream exploded');
    expect(fake.requests).toHaveLength(1);
  });

  it('surfaces a 429 as RATE_LIMITED carrying the retry-after value', async () => {
    fake.enqueue({ error: { status: 429, message: 'slow down', retryAfterSeconds: 7 } });
    const error = await failureOf(model.invoke('hi'), c.provider);

    expect(error.code).toBe('RATE_LIMITED');
    expect(error.retryable).toBe(true);
    expect(error.details['retryAfterSeconds']).toBe(7);
    expect(fake.requests).toHaveLength(1);
  });

  it('surfaces a 400 as a non-retryable BAD_REQUEST', async () => {
    fake.enqueue({ error: { status: 400, message: 'bad field' } });
    const error = await failureOf(model.invoke('hi'), c.provider);

    expect(error.code).toBe('BAD_REQUEST');
    expect(error.retryable).toBe(false);
  });

  it('gives up on a slow answer after the per-call timeout', async () => {
    const slow = createChatModel(resolveModel({ team: { model: c.model } }), credentials, {
      ...c.options(fake),
      timeoutMs: 200,
    });
    fake.enqueue({ text: 'too late', delayMs: 5_000 });
    const error = await failureOf(slow.invoke('hi'), c.provider);

    expect(error.code).toBe(c.timeoutCode);
    expect(error.retryable).toBe(true);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('createChatModel configuration', () => {
  it('points openai-compatible models at the configured base URL', async () => {
    const fake = await startFakeOpenAi();
    try {
      fake.enqueue({ text: 'hello from ollama' });
      const resolved = resolveModel({ team: { model: 'openai-compatible:qwen2.5-coder:7b' } });
      const model = createChatModel(resolved, { openaiCompatibleBaseUrl: fake.baseUrl });
      const reply = await model.invoke('hi');

      expect(reply.text).toBe('hello from ollama');
      expect(fake.requests[0]!.body!['model']).toBe('qwen2.5-coder:7b');
      expect(fake.requests[0]!.body!['reasoning_effort']).toBeUndefined();
    } finally {
      await fake.close();
    }
  });

  it.each([
    ['claude-sonnet-4-6', 'anthropic', 'ANTHROPIC_API_KEY'],
    ['gpt-5', 'openai', 'OPENAI_API_KEY'],
    ['openai-compatible:llama3', 'openai-compatible', 'OPENAI_COMPATIBLE_BASE_URL'],
  ])('refuses %s without credentials, naming %s and %s', (spec, provider, envVar) => {
    const resolved = resolveModel({ team: { model: spec } });
    const build = () => createChatModel(resolved, { anthropicApiKey: ' ' });

    expect(build).toThrow(AppError);
    expect(build).toThrow(new RegExp(`${provider} model provider .*set ${envVar}`));
  });

  it('rejects client retries beyond the bound', () => {
    const resolved = resolveModel({ team: { model: 'gpt-5' } });
    expect(() => createChatModel(resolved, credentials, { maxRetries: 10 })).toThrow(
      /retries must be an integer 0\.\.3/,
    );
  });
});
