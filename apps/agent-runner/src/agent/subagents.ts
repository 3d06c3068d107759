import { isLoopExit, type ResolvedModel } from '@caravel/agent';
import { CARAVEL_NAMESPACE, uuidV5, type DataOf, type RunSubagentV1 } from '@caravel/contracts';
import {
  findAppError,
  foldHooks,
  type MiddlewareEvent,
  type MiddlewareEventSink,
} from '@caravel/middleware';
import {
  type CaravelTool,
  type SubagentOutcome,
  type SubagentPort,
  type SubagentTask,
  type TodoItem,
} from '@caravel/tools';
import { toLangChainTools } from '@caravel/tools/langchain';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AsyncLocalStorageProviderSingleton } from '@langchain/core/singletons';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { randomUUID } from 'node:crypto';
import { createAgent, type AgentMiddleware } from 'langchain';
import { promptMessageId, streamRun } from './run-stream.js';
import { textOf, type StepRecorder } from './step-recorder.js';

/** What `evt.run.subagent` says, beyond the run it belongs to. */
export type SubagentEvent = Omit<DataOf<typeof RunSubagentV1>, 'threadId' | 'runId'>;

/** What a run's subagents and its todo list tell the bus (the run's {@link RunEvents}). */
export interface RunWorkEvents {
  subagentSteps(subagentRunId: string): StepRecorder;
  subagent(event: SubagentEvent): Promise<void>;
  todos(todos: readonly TodoItem[], toolCallId: string): Promise<void>;
}

/** How the run's subagents are made: one model, one tool set, a fresh stack each. */
export interface SubagentBlueprint {
  parentRunId: string;
  model: ResolvedModel;
  chatModel: BaseChatModel;
  /** The run's tools without `task`, `write_todos` and the tools that end the run. */
  tools: CaravelTool[];
  /** A subagent's middleware stack; `events` records its refused answers on its own steps. */
  stack: (
    subagentRunId: string,
    events: MiddlewareEventSink,
  ) => { middleware: AgentMiddleware[]; recursionLimit: number };
  checkpointer: BaseCheckpointSaver;
  systemPrompt: string;
  events: RunWorkEvents;
  /** The run's interrupt: it stops the subagent too. */
  signal?: AbortSignal;
}

/** Tells a subagent what it is, after the run's own system prompt. */
export const SUBAGENT_PROMPT =
  'You are a subagent: another agent delegated one subtask to you and reads only your final ' +
  'message. Work in the same repository with your tools, then answer with a message without ' +
  'tool calls that holds everything it asked for (paths, findings, what you changed). You ' +
  'cannot delegate, submit or end the run; do not reply to the user unless the subtask says so.';

/** A subagent's run id: derived from its parent's `task` call, so a resumed run finds it again. */
export function subagentRunId(parentRunId: string, callId: string): string {
  return uuidV5(`subagent:${parentRunId}:${callId}`, CARAVEL_NAMESPACE);
}

/** The checkpoint thread of a subagent: its own conversation, apart from the run's. */
function checkpointThread(runId: string): string {
  return `subagent:${runId}`;
}

/** Its messages after its prompt: its answers and their tools' results. */
function ownMessages(history: readonly BaseMessage[], runId: string): BaseMessage[] {
  const start = history.findIndex((message) => message.id === promptMessageId(runId));
  return history.slice(start + 1);
}

function spentBy(messages: readonly BaseMessage[]): { modelCalls: number; costUsd: number } {
  const answers = messages.filter((message) => AIMessage.isInstance(message));
  const costUsd = answers.reduce((sum, answer) => {
    const cost = (answer.response_metadata as { cost_usd?: unknown } | undefined)?.cost_usd;
    return sum + (typeof cost === 'number' && Number.isFinite(cost) ? cost : 0);
  }, 0);
  return { modelCalls: answers.length, costUsd };
}

/**
 * The `task` tool's subagents for one run: each one a fresh agent on the subagent model with the
 * run's tools (minus delegation, the todo list and the tools that end the run), in the run's
 * sandbox, with a conversation of its own (checkpointed apart, so a resumed run continues it)
 * and its share of the run's budget. Its steps are the run's `evt.run.step` events under the
 * actor `subagent:<id>`, framed by `evt.run.subagent` started/finished. A limit that stops it
 * is its answer, not the run's end; anything else (an interrupt, a lost sandbox) is the run's.
 */
export class RunSubagents implements SubagentPort {
  constructor(private readonly blueprint: SubagentBlueprint) {}

  /**
   * Runs outside the parent's LangGraph context: the subagent is a graph of its own, with its
   * own checkpoints, not a subgraph of the run's tool call (which would file them under the
   * run's namespace, out of its own reach).
   */
  run(task: SubagentTask): Promise<SubagentOutcome> {
    return AsyncLocalStorageProviderSingleton.getInstance().run(undefined, () => this.work(task));
  }

  private async work(task: SubagentTask): Promise<SubagentOutcome> {
    const { blueprint } = this;
    const toolCallId = task.callId ?? randomUUID();
    const runId = subagentRunId(blueprint.parentRunId, toolCallId);
    const model = `${blueprint.model.provider}:${blueprint.model.modelId}`;
    const framing = { subagentRunId: runId, toolCallId, model, description: task.description };
    await blueprint.events.subagent({ ...framing, phase: 'started', prompt: task.prompt });
    const recorder = blueprint.events.subagentSteps(runId);
    const sink = new SubagentSink(recorder);
    const stack = blueprint.stack(runId, sink);
    const agent = createAgent({
      model: blueprint.chatModel,
      tools: toLangChainTools(blueprint.tools),
      middleware: foldHooks(stack.middleware),
      checkpointer: blueprint.checkpointer,
      systemPrompt: `${blueprint.systemPrompt}\n\n${SUBAGENT_PROMPT}`,
    });
    const run = { threadId: checkpointThread(runId), runId, prompt: task.prompt };
    const built = { agent, recursionLimit: stack.recursionLimit, openingMessage: same };
    let stopped: { exitStatus: string; why: string } | undefined;
    try {
      const outcome = await streamRun(built, run, recorder, noHeartbeat, blueprint.signal);
      if (outcome.middlewareExit) stopped = { exitStatus: outcome.middlewareExit, why: '' };
    } catch (error) {
      const exit = findAppError(error);
      if (!isLoopExit(exit)) throw error;
      await recorder.flush();
      stopped = { exitStatus: exit.reason, why: exit.message };
    }
    const state = (await agent.graph.getState({ configurable: { thread_id: run.threadId } })) as {
      values?: { messages?: BaseMessage[] };
    };
    const messages = ownMessages(state.values?.messages ?? [], runId);
    const last = messages.findLast((message) => AIMessage.isInstance(message));
    const said = last ? textOf(last).trim() : '';
    const answer = stopped
      ? [stopped.why, said && `Its last message: ${said}`].filter(Boolean).join('\n')
      : said || '(the subagent answered nothing)';
    const kept = spentBy(messages);
    const outcome = {
      ...framing,
      exitStatus: stopped?.exitStatus ?? 'submitted',
      answer,
      modelCalls: Math.max(sink.spent.modelCalls, kept.modelCalls),
      costUsd: Math.max(sink.spent.costUsd, kept.costUsd),
    };
    await blueprint.events.subagent({
      ...framing,
      phase: 'finished',
      exitStatus: outcome.exitStatus,
      result: answer,
      modelCalls: outcome.modelCalls,
      costUsd: outcome.costUsd,
    });
    return {
      subagentRunId: runId,
      model,
      exitStatus: outcome.exitStatus,
      answer,
      modelCalls: outcome.modelCalls,
      costUsd: outcome.costUsd,
    };
  }
}

const same = (prompt: string): string => prompt;
const noHeartbeat = (): Promise<void> => Promise.resolve();

/**
 * What a subagent's stack reports: its refused answers go to its own steps, and its spending
 * (every paid call, refused answers included) is kept for its outcome.
 */
class SubagentSink implements MiddlewareEventSink {
  spent = { modelCalls: 0, costUsd: 0 };

  constructor(private readonly recorder: StepRecorder) {}

  emit(event: MiddlewareEvent): void {
    if (event.type === 'model_call_cost') {
      this.spent = { modelCalls: event.totals.calls, costUsd: event.totals.costUsd };
    } else if (event.type === 'requery') {
      const { reply, failure, message } = event;
      this.recorder.noteFailedAttempt({ ...reply, failure, message });
    }
  }
}
