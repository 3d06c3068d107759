import type { ResolvedModel } from '@caravel/agent';
import {
  buildMiddlewareStack,
  graphRecursionLimitFor,
  SUBAGENT_MIDDLEWARE,
  type MiddlewareEventSink,
  type MiddlewareStackOptions,
} from '@caravel/middleware';
import { agentWorkTools, subagentToolsOf, type CaravelTool } from '@caravel/tools';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseCheckpointSaver } from '@langchain/langgraph';
import { randomUUID } from 'node:crypto';
import { ModelConversationSummarizer } from './conversation-summarizer.js';
import { contextWindowOf, pricingFor } from './model-pricing.js';
import { promptMessageId } from './run-stream.js';
import { RunSubagents, type RunWorkEvents } from './subagents.js';

/** What a subagent's stack is derived from. */
interface SubagentStack {
  runId: string;
  model: ResolvedModel;
  chatModel: BaseChatModel;
  /** Share (0 to 1] of the run's budget and model calls it may use. */
  share: number;
  events: MiddlewareEventSink;
}

/**
 * A subagent's middleware options, derived from its run's: its own run id (its answers and calls
 * are numbered in it), its model (limits priced and its window measured for it, summarised by it),
 * and its share of the run's dollar budget and model calls.
 */
export function subagentStackOptions(
  run: MiddlewareStackOptions,
  sub: SubagentStack,
): MiddlewareStackOptions {
  const window = contextWindowOf(sub.model);
  const prompt = promptMessageId(sub.runId);
  // At its share a subagent stops with its answer: only the run as a whole pauses at its budget.
  const { limits, budgetPause: _runsOwn, ...runLimits } = run.runLimits;
  return {
    ...run,
    run: { runId: sub.runId, promptMessageId: prompt },
    ports: { ...run.ports, events: sub.events },
    modelCallLimit: Math.max(1, Math.floor(run.modelCallLimit * sub.share)),
    primaryModel: { provider: sub.model.provider, modelId: sub.model.modelId },
    contextWindow: {
      contextWindow: window,
      ...(run.contextWindow?.keepObservations === undefined
        ? {}
        : { keepObservations: run.contextWindow.keepObservations }),
      ...(window > 0 ? { summarizer: new ModelConversationSummarizer(sub.chatModel) } : {}),
    },
    runLimits: {
      ...runLimits,
      limits: { ...limits, maxCostUsd: limits.maxCostUsd * sub.share, maxInputTokens: window },
      pricing: pricingFor(sub.model),
      promptMessageId: prompt,
    },
  };
}

/** What the run's `task` and `write_todos` tools are built from. */
export interface AgentWorkSetup {
  runId: string;
  work: RunWorkEvents;
  signal?: AbortSignal;
  /** The subagent model, and its client. */
  model: ResolvedModel;
  chatModel: BaseChatModel;
  share: number;
  /** The run's other tools: a subagent gets them without those it may not use. */
  runTools: readonly CaravelTool[];
  checkpointer: BaseCheckpointSaver;
  systemPrompt: string;
  /** The run's middleware options (read when a subagent starts, after the run's are built). */
  stack: () => MiddlewareStackOptions;
}

/**
 * The run's `write_todos` (the list published as `evt.run.todos`) and `task` (a subagent on the
 * subagent model, see {@link RunSubagents}).
 */
export function agentWorkToolsFor(setup: AgentWorkSetup): CaravelTool[] {
  const stackOf = (runId: string, events: MiddlewareEventSink) => {
    const options = subagentStackOptions(setup.stack(), {
      runId,
      model: setup.model,
      chatModel: setup.chatModel,
      share: setup.share,
      events,
    });
    const middleware = buildMiddlewareStack(options, SUBAGENT_MIDDLEWARE);
    return {
      middleware,
      recursionLimit: graphRecursionLimitFor(middleware, options.modelCallLimit),
    };
  };
  const subagents = new RunSubagents({
    parentRunId: setup.runId,
    model: setup.model,
    chatModel: setup.chatModel,
    tools: subagentToolsOf(setup.runTools),
    stack: stackOf,
    checkpointer: setup.checkpointer,
    systemPrompt: setup.systemPrompt,
    events: setup.work,
    ...(setup.signal ? { signal: setup.signal } : {}),
  });
  return agentWorkTools({
    subagents,
    todos: { publish: (todos, callId) => setup.work.todos(todos, callId ?? randomUUID()) },
  });
}
