import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import type { MiddlewareEventSink } from './ports.js';

/** Parameters of {@link stripEmptyThinkingMiddleware}. */
export interface StripEmptyThinkingOptions {
  events: MiddlewareEventSink;
}

type Block = Record<string, unknown>;

function isBlank(value: unknown): boolean {
  return typeof value !== 'string' || value.trim().length === 0;
}

/** A reasoning block the provider would reject if it were sent back. */
export function isMalformedThinkingBlock(block: unknown): boolean {
  if (typeof block !== 'object' || block === null) return false;
  const b = block as Block;
  switch (b['type']) {
    case 'thinking':
      return isBlank(b['thinking']) || isBlank(b['signature']);
    case 'redacted_thinking':
      return isBlank(b['data']);
    case 'reasoning':
      return isBlank(b['reasoning']) && !Array.isArray(b['summary']);
    default:
      return false;
  }
}

function stripped(message: AIMessage): { message: AIMessage; removed: number } {
  if (typeof message.content === 'string') return { message, removed: 0 };
  const kept = message.content.filter((block) => !isMalformedThinkingBlock(block));
  const removed = message.content.length - kept.length;
  if (removed === 0) return { message, removed };
  const copy = new AIMessage({
    id: message.id,
    name: message.name,
    content: kept.length === 0 ? '' : kept,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
    usage_metadata: message.usage_metadata,
    tool_calls: message.tool_calls,
    invalid_tool_calls: message.invalid_tool_calls,
  });
  return { message: copy, removed };
}

/**
 * Removes empty or unsigned thinking / reasoning blocks from earlier AI messages just before they
 * go back to the provider, which rejects them. Only the outgoing request changes; the stored
 * conversation keeps what the model produced.
 */
export function stripEmptyThinkingMiddleware(options: StripEmptyThinkingOptions): AgentMiddleware {
  return createMiddleware({
    name: 'strip-empty-thinking',
    wrapModelCall: (request, handler) => {
      let removed = 0;
      const messages = request.messages.map((message: BaseMessage) => {
        if (!AIMessage.isInstance(message)) return message;
        const result = stripped(message);
        removed += result.removed;
        return result.message;
      });
      if (removed === 0) return handler(request);
      options.events.emit({ type: 'thinking_blocks_stripped', removed });
      return handler({ ...request, messages });
    },
  });
}
