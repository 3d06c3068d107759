import type { ToolCall, InvalidToolCall } from '@langchain/core/messages/tool';
import { toJsonSchema } from '@langchain/core/utils/json_schema';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import { lastAiMessage, withToolCalls } from './ai-messages.js';
import { normalizeToolArgs } from './normalize-tool-args.js';
import { errorToolMessage } from './tool-messages.js';

/** Parameters of {@link sanitizeToolInputsMiddleware}. */
export interface SanitizeToolInputsOptions {
  /** Largest accepted tool-argument payload in bytes of JSON (default 256 KiB). */
  maxArgBytes?: number;
}

/** Where a call whose arguments did not parse as JSON keeps its raw text until it is answered. */
export const MALFORMED_ARGS_KEY = '__caravel_malformed_args__';

const DEFAULT_MAX_ARG_BYTES = 256 * 1024;

type JsonProperty = { type?: unknown };

function isStructuredType(type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.includes('object') || types.includes('array');
}

function structuredKeysOf(tool: unknown): Set<string> {
  const schema = (tool as { schema?: unknown } | undefined)?.schema;
  if (schema === undefined || schema === null) return new Set();
  try {
    const json = toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]) as {
      properties?: Record<string, JsonProperty>;
    };
    const entries = Object.entries(json.properties ?? {});
    return new Set(entries.filter(([, p]) => isStructuredType(p.type)).map(([key]) => key));
  } catch {
    // A schema we cannot read only loses the nested-JSON repair; the other repairs still apply.
    return new Set();
  }
}

function fromInvalid(call: InvalidToolCall, index: number): ToolCall {
  return {
    name: call.name ?? 'unknown_tool',
    id: call.id ?? `malformed-${index}`,
    type: 'tool_call',
    args: { [MALFORMED_ARGS_KEY]: call.error ?? 'the arguments are not valid JSON' },
  };
}

function malformedReason(args: Record<string, unknown>): string | undefined {
  const reason = args[MALFORMED_ARGS_KEY];
  return typeof reason === 'string' ? reason : undefined;
}

/**
 * Outermost: repairs or refuses tool arguments before any tool (or inner middleware) sees them.
 * Calls whose arguments did not parse at all become answered calls with an error, so the model
 * gets a clear message instead of the run ending on an unanswered call.
 */
export function sanitizeToolInputsMiddleware(
  options: SanitizeToolInputsOptions = {},
): AgentMiddleware {
  const maxBytes = options.maxArgBytes ?? DEFAULT_MAX_ARG_BYTES;
  return createMiddleware({
    name: 'sanitize-tool-inputs',
    afterModel: (state) => {
      const message = lastAiMessage(state.messages);
      const invalid = message?.invalid_tool_calls ?? [];
      if (message === undefined || invalid.length === 0) return undefined;
      const repaired = [...(message.tool_calls ?? []), ...invalid.map(fromInvalid)];
      return { messages: [withToolCalls(message, repaired)] };
    },
    wrapToolCall: async (request, handler) => {
      const call = request.toolCall;
      const malformed = malformedReason(call.args);
      if (malformed !== undefined) {
        return errorToolMessage(
          call,
          `Error: the arguments of ${call.name} could not be parsed (${malformed}). Send the call again with a JSON object.`,
        );
      }
      const result = normalizeToolArgs(call.args, {
        maxBytes,
        structuredKeys: structuredKeysOf(request.tool),
      });
      if (!result.ok) {
        return errorToolMessage(call, `Error: ${call.name} was not run: ${result.reason}.`);
      }
      return handler({ ...request, toolCall: { ...call, args: result.args } });
    },
  });
}
