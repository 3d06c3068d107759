import { createMiddleware, type AgentMiddleware } from 'langchain';
import { describeError, isControlFlow } from './error-inspection.js';
import { errorToolMessage } from './tool-messages.js';

/** Parameters of {@link toolErrorsMiddleware}. */
export interface ToolErrorsOptions {
  /** Longest error text handed back to the model (default 4,000 characters). */
  maxErrorChars?: number;
}

const DEFAULT_MAX_ERROR_CHARS = 4000;

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[error text clipped: ${text.length - max} more characters]`;
}

/**
 * Turns anything a tool throws (including arguments that fail the tool's schema) into a
 * ToolMessage with `status: 'error'`, so a failing tool is an observation, never a crashed run.
 * Graph interrupts pass through: they are control flow, not failures.
 */
export function toolErrorsMiddleware(options: ToolErrorsOptions = {}): AgentMiddleware {
  const max = options.maxErrorChars ?? DEFAULT_MAX_ERROR_CHARS;
  return createMiddleware({
    name: 'tool-errors',
    wrapToolCall: async (request, handler) => {
      try {
        return await handler(request);
      } catch (error) {
        if (isControlFlow(error)) throw error;
        const call = request.toolCall;
        return errorToolMessage(
          call,
          clip(`Error: ${call.name} failed: ${describeError(error)}`, max),
        );
      }
    },
  });
}
