import {
  usageOf,
  type FakeIds,
  type FakeLlmFlavour,
  type FakeMessageReply,
} from './fake-llm.types.js';

function anthropicErrorType(status: number): string {
  if (status === 429) return 'rate_limit_error';
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

function blocksOf(reply: FakeMessageReply, ids: FakeIds): Block[] {
  const text: Block[] = reply.text === undefined ? [] : [{ type: 'text', text: reply.text }];
  const tools: Block[] = (reply.toolCalls ?? []).map((call, index) => ({
    type: 'tool_use',
    id: call.id ?? ids.toolCallId(index),
    name: call.name,
    input: call.args,
  }));
  return [...text, ...tools];
}

function stopReason(reply: FakeMessageReply): string {
  return (reply.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn';
}

function event(type: string, data: object): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}`;
}

function deltaFrames(block: Block, index: number): string[] {
  if (block.type === 'text') {
    const pieces = block.text.match(/\S+\s*|\s+/g) ?? [];
    return pieces.map((text) =>
      event('content_block_delta', { index, delta: { type: 'text_delta', text } }),
    );
  }
  const json = JSON.stringify(block.input);
  const half = Math.ceil(json.length / 2);
  // Tool input arrives as partial JSON in pieces, as with the real API.
  return [json.slice(0, half), json.slice(half)].map((partial_json) =>
    event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } }),
  );
}

function blockFrames(block: Block, index: number): string[] {
  const start = block.type === 'text' ? { ...block, text: '' } : { ...block, input: {} };
  return [
    event('content_block_start', { index, content_block: start }),
    ...deltaFrames(block, index),
    event('content_block_stop', { index }),
  ];
}

/** The Anthropic Messages wire format (`POST /v1/messages`). */
export const anthropicFlavour: FakeLlmFlavour = {
  name: 'anthropic',
  path: '/v1/messages',
  errorBody(status, message, type) {
    return { type: 'error', error: { type: type ?? anthropicErrorType(status), message } };
  },
  messageBody(reply, ids, model) {
    const usage = usageOf(reply);
    return {
      id: `msg_fake_${ids.seq}`,
      type: 'message',
      role: 'assistant',
      model,
      content: blocksOf(reply, ids),
      stop_reason: stopReason(reply),
      stop_sequence: null,
      usage: { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens },
    };
  },
  streamFrames(reply, ids, model) {
    const usage = usageOf(reply);
    const message = {
      id: `msg_fake_${ids.seq}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: usage.inputTokens, output_tokens: 1 },
    };
    return [
      event('message_start', { message }),
      ...blocksOf(reply, ids).flatMap((block, index) => blockFrames(block, index)),
      event('message_delta', {
        delta: { stop_reason: stopReason(reply), stop_sequence: null },
        usage: { output_tokens: usage.outputTokens },
      }),
      event('message_stop', {}),
    ];
  },
};
