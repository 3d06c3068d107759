import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { InvalidToolCall, ToolCall } from '@langchain/core/messages/tool';

/** The last message of a conversation when it is an AI message. */
export function lastAiMessage(messages: readonly BaseMessage[]): AIMessage | undefined {
  const last = messages.at(-1);
  return last !== undefined && AIMessage.isInstance(last) ? last : undefined;
}

/** Whether the model asked for any tool, including calls whose arguments did not parse. */
export function hasAnyToolCall(message: AIMessage): boolean {
  return (message.tool_calls?.length ?? 0) > 0 || (message.invalid_tool_calls?.length ?? 0) > 0;
}

/**
 * A copy of `message` (same id, so the messages reducer replaces it in place) with new tool calls.
 */
export function withToolCalls(
  message: AIMessage,
  toolCalls: ToolCall[],
  invalidToolCalls: InvalidToolCall[] = [],
): AIMessage {
  return new AIMessage({
    id: message.id,
    name: message.name,
    content: message.content,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    usage_metadata: message.usage_metadata,
    tool_calls: toolCalls,
    invalid_tool_calls: invalidToolCalls,
  });
}
