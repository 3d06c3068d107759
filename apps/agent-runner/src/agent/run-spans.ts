import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import type { Serialized } from '@langchain/core/load/serializable';
import type { BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import * as otel from '@opentelemetry/api';

const tracer = () => otel.trace.getTracer('caravel.agent');

interface Usage {
  input_tokens?: number;
  output_tokens?: number;
}

interface AnswerMessage {
  usage_metadata?: Usage;
}

/** The message of an answer (a chat model's first generation). */
function messageOf(output: LLMResult): AnswerMessage | undefined {
  const [first] = output.generations[0] ?? [];
  return (first as { message?: AnswerMessage } | undefined)?.message;
}

/**
 * OpenTelemetry spans for what a run's agent does, after OpenTelemetry's generative-AI
 * conventions: `chat <model>` per model call (provider, model, tokens) and `execute_tool <name>`
 * per tool call, children of the run's span (the runner's handling of the start command), so a
 * trace shows each step between the dispatch and the broker's execs. Built only while a span
 * records (traces on): off, the run has no handler at all.
 */
export class RunSpans extends BaseCallbackHandler {
  readonly name = 'caravel-run-spans';
  private readonly open = new Map<string, otel.Span>();

  private constructor(private readonly parent: otel.Context) {
    super();
  }

  /** The handler for a run starting now, or none when traces are off. */
  static forActiveRun(): RunSpans | undefined {
    return otel.trace.getActiveSpan()?.isRecording()
      ? new RunSpans(otel.context.active())
      : undefined;
  }

  override handleChatModelStart(
    _llm: Serialized,
    _messages: BaseMessage[][],
    runId: string,
    _parentRunId?: string,
    _extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
  ): void {
    const model = typeof metadata?.['ls_model_name'] === 'string' ? metadata['ls_model_name'] : '';
    const provider = typeof metadata?.['ls_provider'] === 'string' ? metadata['ls_provider'] : '';
    this.start(runId, `chat ${model || 'model'}`, otel.SpanKind.CLIENT, {
      'gen_ai.operation.name': 'chat',
      ...(model ? { 'gen_ai.request.model': model } : {}),
      ...(provider ? { 'gen_ai.provider.name': provider } : {}),
    });
  }

  override handleLLMEnd(output: LLMResult, runId: string): void {
    const usage = messageOf(output)?.usage_metadata ?? {};
    this.end(runId, {
      ...(usage.input_tokens === undefined
        ? {}
        : { 'gen_ai.usage.input_tokens': usage.input_tokens }),
      ...(usage.output_tokens === undefined
        ? {}
        : { 'gen_ai.usage.output_tokens': usage.output_tokens }),
    });
  }

  override handleLLMError(error: Error, runId: string): void {
    this.end(runId, {}, error);
  }

  override handleToolStart(
    tool: Serialized,
    _input: string,
    runId: string,
    _parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
  ): void {
    const name = runName ?? tool.id.at(-1) ?? 'tool';
    this.start(runId, `execute_tool ${name}`, otel.SpanKind.INTERNAL, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': name,
    });
  }

  override handleToolEnd(_output: unknown, runId: string): void {
    this.end(runId);
  }

  override handleToolError(error: Error, runId: string): void {
    this.end(runId, {}, error);
  }

  private start(
    runId: string,
    name: string,
    kind: otel.SpanKind,
    attributes: otel.Attributes,
  ): void {
    this.open.set(runId, tracer().startSpan(name, { kind, attributes }, this.parent));
  }

  private end(runId: string, attributes: otel.Attributes = {}, error?: Error): void {
    const span = this.open.get(runId);
    if (!span) return;
    this.open.delete(runId);
    span.setAttributes(attributes);
    if (error) {
      span.recordException(error);
      span.setStatus({ code: otel.SpanStatusCode.ERROR, message: error.message });
    }
    span.end();
  }
}
