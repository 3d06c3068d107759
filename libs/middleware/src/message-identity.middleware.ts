import { createHash } from 'node:crypto';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { InvalidToolCall, ToolCall } from '@langchain/core/messages/tool';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { answersThisRun } from './run-turns.js';

/** Parameters of {@link messageIdentityMiddleware}. */
export interface MessageIdentityOptions {
  /** The run the answers belong to. */
  runId: string;
  /** The id of the run's prompt: the run's turns are the AI messages after it. */
  promptMessageId: string;
}

/** Where an answer keeps the ids its provider gave it (`response_metadata`, never sent). */
const PROVIDER_IDS = 'caravel_provider_ids';

/** The ids a provider chose for one answer: its message's, and each call's under Caravel's id. */
interface ProviderIds {
  message: string | null;
  calls: Record<string, string>;
}

/** A short, stable key of a run: ids built from it stay within providers' limits (40 chars). */
function runKey(runId: string): string {
  return createHash('sha256').update(runId).digest('hex').slice(0, 12);
}

/** Caravel's id of the model's answer in turn `turn` (0-based) of run `runId`. */
export function turnMessageId(runId: string, turn: number): string {
  return `ai_${runKey(runId)}_${turn}`;
}

/**
 * Caravel's id of call `index` (0-based, unparsable calls after the others) of the model's
 * answer in turn `turn` of run `runId`: letters, digits and `_`, under 40 characters, as every
 * provider accepts.
 */
export function turnCallId(runId: string, turn: number, index: number): string {
  return `call_${runKey(runId)}_${turn}_${index}`;
}

function providerIdsOf(message: AIMessage): ProviderIds | undefined {
  const ids: unknown = message.response_metadata[PROVIDER_IDS];
  return typeof ids === 'object' && ids !== null ? (ids as ProviderIds) : undefined;
}

function aiMessageWith(
  message: AIMessage,
  changes: {
    id: string | undefined;
    toolCalls: ToolCall[];
    invalidToolCalls: InvalidToolCall[];
    responseMetadata?: AIMessage['response_metadata'];
  },
): AIMessage {
  return new AIMessage({
    id: changes.id,
    name: message.name,
    content: message.content,
    additional_kwargs: message.additional_kwargs,
    response_metadata: changes.responseMetadata ?? message.response_metadata,
    usage_metadata: message.usage_metadata,
    tool_calls: changes.toolCalls,
    invalid_tool_calls: changes.invalidToolCalls,
  });
}

/** The answer under Caravel's ids, the provider's kept beside them for the way back. */
function withCaravelIds(answer: AIMessage, runId: string, turn: number): AIMessage {
  const calls: Record<string, string> = {};
  const rename = <T extends { id?: string }>(call: T, index: number): T => {
    const id = turnCallId(runId, turn, index);
    if (call.id) calls[id] = call.id;
    return { ...call, id };
  };
  const toolCalls = (answer.tool_calls ?? []).map(rename);
  const invalid = (answer.invalid_tool_calls ?? []).map((call, k) =>
    rename(call, toolCalls.length + k),
  );
  const providerIds: ProviderIds = { message: answer.id ?? null, calls };
  return aiMessageWith(answer, {
    id: turnMessageId(runId, turn),
    toolCalls,
    invalidToolCalls: invalid,
    responseMetadata: { ...answer.response_metadata, [PROVIDER_IDS]: providerIds },
  });
}

/** An earlier answer as its provider gave it: its own message and call ids. */
function asProviderGave(message: AIMessage, ids: ProviderIds): AIMessage {
  const theirs = <T extends { id?: string }>(call: T): T =>
    call.id && ids.calls[call.id] ? { ...call, id: ids.calls[call.id] } : call;
  return aiMessageWith(message, {
    id: ids.message ?? message.id,
    toolCalls: (message.tool_calls ?? []).map(theirs),
    invalidToolCalls: (message.invalid_tool_calls ?? []).map(theirs),
  });
}

function withToolCallId(message: ToolMessage, toolCallId: string): ToolMessage {
  return new ToolMessage({
    id: message.id,
    name: message.name,
    content: message.content,
    tool_call_id: toolCallId,
    status: message.status,
    artifact: message.artifact as unknown,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

/**
 * The conversation as the provider produced it: each earlier answer with its own ids, each
 * tool result under the id of the call it answers (the calls of the answer before it).
 */
function asProviderSaw(messages: readonly BaseMessage[]): BaseMessage[] {
  let calls: Record<string, string> = {};
  return messages.map((message) => {
    if (AIMessage.isInstance(message)) {
      const ids = providerIdsOf(message);
      calls = ids?.calls ?? {};
      return ids ? asProviderGave(message, ids) : message;
    }
    if (ToolMessage.isInstance(message)) {
      const theirs = calls[message.tool_call_id];
      return theirs ? withToolCallId(message, theirs) : message;
    }
    return message;
  });
}

/**
 * Keys every answer and tool call on Caravel's own identity, never on ids a provider chose: a
 * provider restarted mid-thread (an OpenAI-compatible server numbering its ids from 1 again)
 * repeats ids, and LangGraph's messages reducer replaces a message whose id it has seen while
 * LangChain's agent skips a call whose id already has a result. The model's answer gets the id
 * of its turn of the run ({@link turnMessageId}) and each call the id of its place in that turn
 * ({@link turnCallId}), so steps, tool results and idempotency keys built on them are the run's
 * own. Innermost, so the provider is always sent its own ids back: they stay in the answer's
 * `response_metadata` and are put back into the request.
 */
export function messageIdentityMiddleware(options: MessageIdentityOptions): AgentMiddleware {
  return createMiddleware({
    name: 'message-identity',
    wrapModelCall: async (request, handler) => {
      const turn = answersThisRun(request.state.messages, options.promptMessageId);
      const answer = await handler({ ...request, messages: asProviderSaw(request.messages) });
      if (!AIMessage.isInstance(answer)) return answer;
      return withCaravelIds(answer, options.runId, turn);
    },
  });
}
