import { ToolMessage } from '@langchain/core/messages';
import {
  StructuredTool,
  ToolInputParsingException,
  type ToolRunnableConfig,
} from '@langchain/core/tools';
import type { z } from 'zod';

import type { CaravelTool, ToolCallContext, ToolResult } from './tool-definition.js';

/**
 * A {@link CaravelTool} as a LangChain structured tool. The model sees the tool's JSON Schema;
 * a call answers with a `ToolMessage` whose content is the observation, whose `artifact` is the
 * typed output (or the error's JSON), and whose status is `error` for a failed call. Input that
 * does not match the schema becomes such an error message, never an exception.
 */
export class CaravelLangChainTool extends StructuredTool<z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodType;

  constructor(readonly tool: CaravelTool) {
    super();
    this.name = tool.name;
    this.description = tool.description;
    this.schema = tool.input;
  }

  override async call(
    arg: Parameters<StructuredTool<z.ZodType>['call']>[0],
    configArg?: ToolRunnableConfig,
    tags?: string[],
  ): ReturnType<StructuredTool<z.ZodType>['call']> {
    try {
      // Callbacks (traces) name the tool's run after the tool, not after this adapter class.
      return await super.call(
        arg,
        { ...configArg, runName: configArg?.runName ?? this.name },
        tags,
      );
    } catch (error) {
      // LangChain validates before _call; route its refusal through our own clearer message.
      if (!(error instanceof ToolInputParsingException)) throw error;
      const args = isToolCall(arg) ? arg.args : arg;
      const id = isToolCall(arg) ? arg.id : configArg?.toolCall?.id;
      return formatResult(this.name, await this.tool.invoke(args, callOf(id)), id);
    }
  }

  protected async _call(
    arg: unknown,
    _runManager?: unknown,
    config?: ToolRunnableConfig,
  ): Promise<ToolMessage | string> {
    const id = config?.toolCall?.id;
    return formatResult(this.name, await this.tool.invoke(arg, callOf(id)), id);
  }
}

function callOf(id: string | undefined): ToolCallContext {
  return id === undefined ? {} : { callId: id };
}

/** Adapts a list of tools for a LangChain / deepagents agent. */
export function toLangChainTools(tools: readonly CaravelTool[]): CaravelLangChainTool[] {
  return tools.map((tool) => new CaravelLangChainTool(tool));
}

function formatResult(
  name: string,
  result: ToolResult<unknown>,
  toolCallId: string | undefined,
): ToolMessage | string {
  if (toolCallId === undefined) return result.observation;
  return new ToolMessage({
    name,
    tool_call_id: toolCallId,
    content: result.observation,
    status: result.ok ? 'success' : 'error',
    artifact: result.ok ? result.output : result.error.toJSON(),
  });
}

function isToolCall(value: unknown): value is { args: unknown; id?: string; type: 'tool_call' } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'tool_call' &&
    'args' in value
  );
}
