import { AppError } from '@caravel/errors';
import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import {
  BaseChatModel,
  type BaseChatModelCallOptions,
  type BindToolsInput,
} from '@langchain/core/language_models/chat_models';
import type { BaseLanguageModelInput } from '@langchain/core/language_models/base';
import { AIMessage, type AIMessageChunk, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import type { Runnable } from '@langchain/core/runnables';
import { providerFailureError } from '../model-errors.js';
import type { CannedError, CannedResponse } from './canned-response.js';

/** How a canned model was built: its answers, the file they came from, its kind. */
export interface CannedChatModelInput {
  readonly responses: readonly CannedResponse[];
  readonly file: string;
  readonly kind: 'scripted' | 'replay';
}

/** Call options: LangChain's, plus the tools `bindTools` binds. */
export interface CannedCallOptions extends BaseChatModelCallOptions {
  tools?: BindToolsInput[];
}

/** One call the model received, for tests and diagnostics. */
export interface CannedCall {
  readonly messageCount: number;
  readonly toolNames: readonly string[];
}

function toolName(tool: unknown): string {
  if (tool !== null && typeof tool === 'object') {
    const named = tool as { name?: unknown; function?: { name?: unknown } };
    if (typeof named.name === 'string') return named.name;
    if (typeof named.function?.name === 'string') return named.function.name;
  }
  return '<unnamed>';
}

/** Tools that end a run, in the graphs Caravel builds (the agent's first). */
const ENDING_TOOLS = ['submit', 'finish'] as const;

/**
 * A deterministic chat model answering from a fixed list, one answer per call, in order. Ids are
 * derived from the position (`<kind>-<n>`, tool calls `<kind>-<n>-<k>`), so two runs of the same
 * script produce identical messages. Past the end of the list it throws PRECONDITION_FAILED
 * (`details.reason = 'model-script-exhausted'`) instead of looping: the loop treats that like a
 * format exit.
 */
export class CannedChatModel extends BaseChatModel<CannedCallOptions> {
  readonly file: string;
  readonly kind: 'scripted' | 'replay';
  readonly calls: CannedCall[] = [];
  private readonly responses: readonly CannedResponse[];

  constructor(input: CannedChatModelInput) {
    super({});
    this.responses = input.responses;
    this.file = input.file;
    this.kind = input.kind;
  }

  _llmType(): string {
    return `caravel-${this.kind}`;
  }

  /** Binds tools the LangChain way; the answers do not depend on them, but calls record them. */
  override bindTools(
    tools: BindToolsInput[],
    kwargs?: Partial<CannedCallOptions>,
  ): Runnable<BaseLanguageModelInput, AIMessageChunk, CannedCallOptions> {
    const options: Partial<CannedCallOptions> = { ...kwargs, tools };
    return this.withConfig(options);
  }

  /** How many answers are left. */
  get remaining(): number {
    return this.responses.length - this.calls.length;
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the LangChain contract is async
  async _generate(
    messages: BaseMessage[],
    options: this['ParsedCallOptions'],
    _runManager?: CallbackManagerForLLMRun,
  ): Promise<ChatResult> {
    const index = this.calls.length;
    const tools = options.tools ?? [];
    this.calls.push({ messageCount: messages.length, toolNames: tools.map(toolName) });
    const response = this.responses[index];
    if (response === undefined) throw this.exhausted(index, tools.map(toolName));
    if (response.error !== undefined) throw this.failure(response.error, response.origin);
    const message = this.toMessage(response, index);
    return { generations: [{ text: response.content ?? '', message }] };
  }

  private exhausted(index: number, toolNames: readonly string[]): AppError {
    // The tool that ends a run in the graph that called: `submit` in Caravel's agent, `finish` in
    // SWE-gen's session agent; a graph without either ends on an answer with no tool call.
    const ending = ENDING_TOOLS.find((name) => toolNames.includes(name));
    const end = ending ? `a \`${ending}\` call` : 'an answer without tool calls';
    return new AppError(
      'PRECONDITION_FAILED',
      `${this.kind} model ${this.file}: no answer left for call ${index + 1}; the file has ` +
        `${this.responses.length} (add answers, or end the run with ${end})`,
      { details: { reason: 'model-script-exhausted', file: this.file, calls: index + 1 } },
    );
  }

  private failure(error: CannedError, origin: string): AppError {
    if (error.timeout === true) {
      return new AppError(
        'TIMEOUT',
        `${this.kind} model call timed out (${origin}): ${error.message}`,
        {
          details: { provider: this.kind, origin },
        },
      );
    }
    return providerFailureError({
      provider: this.kind,
      status: error.status ?? null,
      message: `${error.message} (${origin})`,
      retryAfterSeconds: error.retryAfterSeconds ?? null,
    });
  }

  private toMessage(response: CannedResponse, index: number): AIMessage {
    const id = `${this.kind}-${index + 1}`;
    const text = response.content ?? '';
    const content =
      response.thinking === undefined
        ? text
        : [
            { type: 'reasoning' as const, reasoning: response.thinking },
            ...(text === '' ? [] : [{ type: 'text' as const, text }]),
          ];
    const toolCalls = (response.toolCalls ?? []).map((call, k) => ({
      type: 'tool_call' as const,
      id: call.id ?? `${id}-${k + 1}`,
      name: call.name,
      args: call.args,
    }));
    const usage = response.usage;
    return new AIMessage({
      id,
      content,
      tool_calls: toolCalls,
      usage_metadata:
        usage === undefined
          ? undefined
          : {
              input_tokens: usage.inputTokens,
              output_tokens: usage.outputTokens,
              total_tokens: usage.inputTokens + usage.outputTokens,
            },
      response_metadata: {
        model_provider: this.kind,
        origin: response.origin,
        ...(response.costUsd === undefined ? {} : { cost_usd: response.costUsd }),
      },
    });
  }
}
