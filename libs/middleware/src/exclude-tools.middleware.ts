import { createMiddleware, type AgentMiddleware } from 'langchain';
import type { MiddlewareEventSink } from './ports.js';
import { errorToolMessage } from './tool-messages.js';

/** Parameters of {@link excludeToolsMiddleware}. */
export interface ExcludeToolsOptions {
  /** Names of the tools the model is never offered (empty: the unit passes everything through). */
  excluded: readonly string[];
  events: MiddlewareEventSink;
}

/**
 * Hides configured tools from the model on every call and refuses a call to one of them (a model
 * can still name a tool it saw earlier in the conversation). Off by default: with nothing
 * excluded it changes nothing.
 */
export function excludeToolsMiddleware(options: ExcludeToolsOptions): AgentMiddleware {
  const excluded = new Set(options.excluded);
  return createMiddleware({
    name: 'exclude-tools',
    wrapModelCall: (request, handler) => {
      if (excluded.size === 0) return handler(request);
      return handler({
        ...request,
        tools: request.tools.filter((t) => !excluded.has(String(t.name))),
      });
    },
    wrapToolCall: (request, handler) => {
      if (!excluded.has(request.toolCall.name)) return handler(request);
      const reason = 'the tool is turned off for this agent';
      options.events.emit({
        type: 'tool_hidden_call_refused',
        tool: request.toolCall.name,
        reason,
      });
      return errorToolMessage(
        request.toolCall,
        `Error: ${request.toolCall.name} is not available: ${reason}.`,
      );
    },
  });
}
