import {
  usageOf,
  type FakeIds,
  type FakeLlmFlavour,
  type FakeMessageReply,
} from './fake-llm.types.js';

function openAiErrorType(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 401) return 'invalid_api_key';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

function toolCallsOf(reply: FakeMessageReply, ids: FakeIds) {
  return (reply.toolCalls ?? []).map((call, index) => ({
    id: call.id ?? ids.toolCallId(index),
    type: 'function' as const,
    function: { name: call.name, arguments: JSON.stringify(call.args) },
  }));
}

function usageBody(reply: FakeMessageReply) {
  const usage = usageOf(reply);
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

function finishReason(reply: FakeMessageReply): string {
  return (reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop';
}

function chunk(ids: FakeIds, model: string, choices: unknown[], extra: object = {}): string {
  const body = {
    id: `chatcmpl-fake-${ids.seq}`,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices,
    ...extra,
  };
  return `data: ${JSON.stringify(body)}`;
}

function toolCallFrames(reply: FakeMessageReply, ids: FakeIds, model: string): string[] {
  return toolCallsOf(reply, ids).flatMap((call, index) => {
    const args = call.function.arguments;
    const half = Math.ceil(args.length / 2);
    // Arguments arrive in two pieces so clients must concatenate, as with the real API.
    const head = {
      index,
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: '' },
    };
    return [args.slice(0, half), args.slice(half)].reduce<string[]>(
      (frames, piece) => [
        ...frames,
        chunk(ids, model, [
          {
            index: 0,
            delta: { tool_calls: [{ index, function: { arguments: piece } }] },
            finish_reason: null,
          },
        ]),
      ],
      [chunk(ids, model, [{ index: 0, delta: { tool_calls: [head] }, finish_reason: null }])],
    );
  });
}

function textFrames(text: string, ids: FakeIds, model: string): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  return words.map((piece) =>
    chunk(ids, model, [{ index: 0, delta: { content: piece }, finish_reason: null }]),
  );
}

/** The OpenAI Chat Completions wire format (`POST /v1/chat/completions`). */
export const openAiFlavour: FakeLlmFlavour = {
  name: 'openai',
  path: '/v1/chat/completions',
  errorBody(status, message, type) {
    return { error: { message, type: type ?? openAiErrorType(status), param: null, code: null } };
  },
  messageBody(reply, ids, model) {
    const toolCalls = toolCallsOf(reply, ids);
    return {
      id: `chatcmpl-fake-${ids.seq}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: reply.text ?? null,
            refusal: null,
            ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          },
          logprobs: null,
          finish_reason: finishReason(reply),
        },
      ],
      usage: usageBody(reply),
    };
  },
  streamFrames(reply, ids, model) {
    return [
      chunk(ids, model, [
        { index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null },
      ]),
      ...textFrames(reply.text ?? '', ids, model),
      ...toolCallFrames(reply, ids, model),
      chunk(ids, model, [{ index: 0, delta: {}, finish_reason: finishReason(reply) }]),
      chunk(ids, model, [], { usage: usageBody(reply) }),
      'data: [DONE]',
    ];
  },
};
