import type { ParsedOutput } from '@caravel/agent';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { ClientTool, ServerTool } from '@langchain/core/tools';
import { toJsonSchema } from '@langchain/core/utils/json_schema';

/** What checking one tool call found: a format failure, or a call that may run. */
export type ToolCallCheck =
  | { ok: false; callId: string | null; parsed: Extract<ParsedOutput, { ok: false }> }
  | {
      ok: true;
      callId: string | null;
      /** The shell command the call runs, for the blocklist and syntax checks. */
      command?: string;
    };

type AnyTool = ClientTool | ServerTool;

interface JsonObjectSchema {
  required?: string[];
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
}

function schemaOf(tool: AnyTool): JsonObjectSchema | null {
  const schema = (tool as { schema?: unknown }).schema;
  if (schema === undefined || schema === null) return null;
  try {
    return toJsonSchema(schema as Parameters<typeof toJsonSchema>[0]) as JsonObjectSchema;
  } catch {
    return null; // a schema we cannot read is checked by the tool itself when it runs
  }
}

function failure(call: ToolCall, errorCode: string, errorMessage: string): ToolCallCheck {
  return { ok: false, callId: call.id ?? null, parsed: { ok: false, errorCode, errorMessage } };
}

/** Checks the arguments of a call against its tool's JSON schema: required and unknown keys. */
function checkArgs(call: ToolCall, tool: AnyTool): ToolCallCheck | null {
  const schema = schemaOf(tool);
  if (schema === null) return null;
  const missing = (schema.required ?? []).filter((key) => !(key in call.args));
  if (missing.length > 0) {
    return failure(
      call,
      'missing_arg',
      `${call.name} needs the argument(s) ${missing.join(', ')}, which the call did not give.`,
    );
  }
  const known = new Set(Object.keys(schema.properties ?? {}));
  const unexpected = Object.keys(call.args).filter((key) => !known.has(key));
  if (schema.additionalProperties === false && unexpected.length > 0) {
    return failure(
      call,
      'unexpected_arg',
      `${call.name} does not take the argument(s) ${unexpected.join(', ')}.`,
    );
  }
  return null;
}

/**
 * Checks one call of a model answer the way SWE-agent's function-calling parser does: the tool
 * must exist, its arguments must parse and match the tool's schema. A call to the shell tool
 * returns its command, which the caller then runs through the blocklist and `bash -n`.
 */
export function checkToolCall(
  entry: { call: ToolCall; parseError?: string },
  tools: ReadonlyMap<string, AnyTool>,
  shellToolName: string,
): ToolCallCheck {
  const { call, parseError } = entry;
  if (parseError !== undefined) {
    return failure(
      call,
      'invalid_json',
      `The arguments of ${call.name} are not valid JSON (${parseError}).`,
    );
  }
  const tool = tools.get(call.name);
  if (!tool) {
    const names = [...tools.keys()].join(', ');
    return failure(
      call,
      'invalid_command',
      `There is no tool named ${call.name}. Tools: ${names}.`,
    );
  }
  const argsProblem = checkArgs(call, tool);
  if (argsProblem) return argsProblem;
  const command: unknown = call.name === shellToolName ? call.args['command'] : undefined;
  return {
    ok: true,
    callId: call.id ?? null,
    ...(typeof command === 'string' ? { command } : {}),
  };
}
