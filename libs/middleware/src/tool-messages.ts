import { ToolMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';

/** A ToolMessage that answers `call` with an error the model can read and act on. */
export function errorToolMessage(call: ToolCall, text: string): ToolMessage {
  return new ToolMessage({
    content: text,
    tool_call_id: call.id ?? '',
    name: call.name,
    status: 'error',
  });
}

/** A copy of `message` with `text` appended to its content (string or content blocks). */
export function appendToToolMessage(message: ToolMessage, text: string): ToolMessage {
  const content =
    typeof message.content === 'string'
      ? message.content + text
      : [...message.content, { type: 'text' as const, text }];
  return new ToolMessage({
    content,
    tool_call_id: message.tool_call_id,
    name: message.name,
    status: message.status,
    artifact: message.artifact as unknown,
    id: message.id,
  });
}
