import {
  CARAVEL_NAMESPACE,
  RunStepV1,
  causedBy,
  uuidV5,
  type EnvelopeOf,
  type StartRunV1,
} from '@caravel/contracts';
import type { MessagePublisher } from '@caravel/messaging';
import type { BaseMessage } from '@langchain/core/messages';
import { humanStepOf, type HumanStep } from '../services/human-commands.js';
import { countModelCall, type ModelCallUsage } from './model-call-metrics.js';

/** The text of a message whose content may be a string or a list of content blocks. */
export function textOf(message: BaseMessage): string {
  const content: unknown = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block: unknown) =>
      typeof block === 'object' &&
      block !== null &&
      'text' in block &&
      typeof block.text === 'string'
        ? block.text
        : '',
    )
    .join('');
}

interface ToolCallLike {
  id?: string;
  name: string;
  args?: unknown;
}

interface StepToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

interface StepResult {
  toolCallId: string;
  name: string;
  content: string;
  status: 'success' | 'error';
}

/** An answer the model had to give again (a requery), kept for the trajectory. */
export interface FailedAttempt {
  content: string;
  toolCalls: { name: string; args: Record<string, unknown> }[];
  failure: string;
  message: string;
}

type Usage = ModelCallUsage;

function usageOf(message: BaseMessage): Usage | undefined {
  const usage = (message as { usage_metadata?: { input_tokens?: number; output_tokens?: number } })
    .usage_metadata;
  const cost = (message.response_metadata as { cost_usd?: unknown } | undefined)?.cost_usd;
  // A model may report a cost without token counts (scripted models can): the cost still counts.
  if (!usage && typeof cost !== 'number') return undefined;
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    ...(typeof cost === 'number' ? { costUsd: cost } : {}),
  };
}

function resultOf(message: BaseMessage): StepResult {
  const m = message as { tool_call_id?: string; name?: string; status?: string };
  return {
    toolCallId: m.tool_call_id ?? '',
    name: m.name ?? '',
    content: textOf(message),
    status: m.status === 'error' ? 'error' : 'success',
  };
}

function toolCallsOf(message: BaseMessage): ToolCallLike[] {
  const calls = (message as { tool_calls?: ToolCallLike[] }).tool_calls;
  return Array.isArray(calls) ? calls : [];
}

function messageKey(message: BaseMessage): string | undefined {
  const toolCallId = (message as { tool_call_id?: unknown }).tool_call_id;
  if (message.getType() === 'tool' && typeof toolCallId === 'string') return `tool:${toolCallId}`;
  return message.id ? `${message.getType()}:${message.id}` : undefined;
}

function describeCall(call: ToolCallLike): string {
  const args = call.args && typeof call.args === 'object' ? JSON.stringify(call.args) : '';
  return args && args !== '{}' ? `${call.name} ${args}` : call.name;
}

/**
 * Turns the agent's messages into `evt.run.step` events: one step per model turn, with its tool
 * calls as the action and their results as the observation. Event ids derive from the run and the
 * step number, so a resumed or redelivered run re-publishes the same ids (deduplicated).
 */
export class StepRecorder {
  private step = 0;
  private pending:
    | {
        thought: string;
        action: string;
        toolCalls: StepToolCall[];
        usage: Usage | undefined;
        failedAttempts: FailedAttempt[];
        /** Who acted, when not the agent (a person who took over). */
        actor?: string;
      }
    | undefined;
  /** Refused answers waiting for the step whose accepted answer follows them. */
  private refused: FailedAttempt[] = [];
  private readonly results: StepResult[] = [];
  /** Middleware nodes may hand back messages already seen; each is recorded once. */
  private readonly seen = new Set<string>();
  readonly toolsCalled: string[] = [];
  /** The state SWE-agent bundles' state commands left after a step's calls (none without bundles). */
  private stateOf:
    ((callIds: readonly string[]) => Record<string, unknown> | undefined) | undefined;

  /**
   * @param as A subagent's recorder: its steps are the run's, under the subagent's actor
   *   (`subagent:<id>`), numbered on their own and identified by the subagent's run id.
   */
  constructor(
    private readonly publisher: MessagePublisher,
    private readonly command: EnvelopeOf<typeof StartRunV1>,
    private readonly source: string,
    private readonly as?: { actor: string; runId: string },
  ) {}

  get steps(): number {
    return this.step;
  }

  /**
   * Messages that are not this run's (what its thread held before the run's prompt): the agent
   * hands the whole conversation back in some updates, and those messages are never its steps.
   */
  ignore(messages: readonly BaseMessage[]): void {
    for (const message of messages) {
      const key = messageKey(message);
      if (key !== undefined) this.seen.add(key);
    }
  }

  async record(message: BaseMessage): Promise<void> {
    const type = message.getType();
    const key = messageKey(message);
    if (key !== undefined) {
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    if (type === 'ai') {
      await this.publishPending();
      const calls = toolCallsOf(message);
      const usage = usageOf(message);
      countModelCall(message, usage);
      this.toolsCalled.push(...calls.map((c) => c.name));
      this.pending = {
        thought: textOf(message),
        action: calls.map(describeCall).join('\n'),
        toolCalls: calls.map((c, k) => ({
          id: c.id ?? `call-${this.step}-${k}`,
          name: c.name,
          args: c.args && typeof c.args === 'object' ? (c.args as Record<string, unknown>) : {},
        })),
        usage,
        failedAttempts: this.refused.splice(0),
      };
      if (calls.length === 0) await this.publishPending();
    } else if (type === 'tool') {
      this.results.push(resultOf(message));
    } else if (type === 'human') {
      const human = humanStepOf(message.additional_kwargs);
      if (human) await this.recordHumanStep(human);
    }
  }

  /** A person's command (human takeover) as a step of its own, under the person's name. */
  private async recordHumanStep(human: HumanStep): Promise<void> {
    await this.publishPending();
    const call = { id: human.callId, name: 'execute', args: { command: human.command } };
    this.pending = {
      thought: '',
      action: describeCall(call),
      toolCalls: [call],
      usage: undefined,
      failedAttempts: [],
      actor: human.actor,
    };
    this.results.push({
      toolCallId: human.callId,
      name: 'execute',
      content: human.output,
      status: human.exitCode === 0 && !human.timedOut ? 'success' : 'error',
    });
    await this.publishPending();
  }

  /** Each step from now on records the state `stateOf` gives for its calls (SWE-agent's `state`). */
  recordStateWith(stateOf: (callIds: readonly string[]) => Record<string, unknown> | undefined) {
    this.stateOf = stateOf;
  }

  /** Notes a refused answer; it joins the next step (or a step of its own if the run ends). */
  noteFailedAttempt(attempt: FailedAttempt): void {
    this.refused.push(attempt);
  }

  /** Publishes the step in progress, then answers refused at the very end as a step of their own. */
  async flush(): Promise<void> {
    await this.publishPending();
    if (this.refused.length === 0) return;
    this.pending = {
      thought: '',
      action: '',
      toolCalls: [],
      usage: undefined,
      failedAttempts: this.refused.splice(0),
    };
    await this.publishPending();
  }

  private async publishPending(): Promise<void> {
    if (!this.pending) return;
    const { threadId, runId } = this.command.data;
    const step = this.step;
    this.step += 1;
    const results = this.results.splice(0);
    const pending = this.pending;
    this.pending = undefined;
    const state = this.stateOf?.(pending.toolCalls.map((call) => call.id));
    await this.publisher.publish(
      RunStepV1,
      {
        threadId,
        runId,
        step,
        thought: pending.thought,
        action: pending.action,
        observation: results.map((r) => r.content).join('\n'),
        toolCalls: pending.toolCalls,
        results,
        failedAttempts: pending.failedAttempts,
        ...(pending.usage ? { usage: pending.usage } : {}),
        ...(state ? { state } : {}),
        ...(pending.actor || this.as ? { actor: pending.actor ?? this.as?.actor } : {}),
      },
      {
        ...causedBy(this.command, this.source),
        id: uuidV5(
          this.as ? `subagent-step:${this.as.runId}:${step}` : `step:${runId}:${step}`,
          CARAVEL_NAMESPACE,
        ),
      },
    );
  }
}
