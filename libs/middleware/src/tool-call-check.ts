import type { ParsedOutput } from '@caravel/agent';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { ClientTool, ServerTool } from '@langchain/core/tools';

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

interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

interface ParsingSchema {
  safeParse(value: unknown): { success: boolean; error?: { issues: ZodIssueLike[] } };
}

function parsingSchemaOf(tool: AnyTool): ParsingSchema | null {
  const schema = (tool as { schema?: unknown }).schema;
  const candidate = schema as { safeParse?: unknown } | null | undefined;
  return typeof candidate?.safeParse === 'function' ? (candidate as ParsingSchema) : null;
}

function failure(call: ToolCall, errorCode: string, errorMessage: string): ToolCallCheck {
  return { ok: false, callId: call.id ?? null, parsed: { ok: false, errorCode, errorMessage } };
}

function describeIssue(issue: ZodIssueLike): string {
  const where = issue.path.map(String).join('.');
  if (issue.code === 'unrecognized_keys') return `unknown argument(s) ${issue.keys?.join(', ')}`;
  return where ? `${where}: ${issue.message}` : issue.message;
}

/**
 * Checks the arguments of a call with the tool's own schema (defaults applied, as the tool will
 * read them): a missing argument, an unknown one or a wrong type is a format error.
 */
function checkArgs(call: ToolCall, tool: AnyTool): ToolCallCheck | null {
  const schema = parsingSchemaOf(tool);
  if (schema === null) return null; // a schema we cannot run is checked by the tool itself
  const result = schema.safeParse(call.args);
  if (result.success) return null;
  const issues = result.error?.issues ?? [];
  const code = issues.some((i) => i.code === 'unrecognized_keys')
    ? 'unexpected_arg'
    : issues.some((i) => i.code === 'invalid_type' && /undefined/.test(i.message))
      ? 'missing_arg'
      : 'incorrect_args';
  return failure(
    call,
    code,
    `The arguments of ${call.name} are not valid: ${issues.map(describeIssue).join('; ')}.`,
  );
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
