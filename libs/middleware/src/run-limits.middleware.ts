import {
  ExecutionTracker,
  LimitGuard,
  LoopExitError,
  StuckDetector,
  type ExecutionLimits,
  type LimitVerdict,
  type RunLimits,
  type WallClock,
} from '@caravel/agent';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { createMiddleware, type AgentMiddleware } from 'langchain';
import type { MiddlewareEventSink, ModelPricing } from './ports.js';

/** Parameters of {@link runLimitsMiddleware}. */
export interface RunLimitsOptions {
  /** Dollars, wall time and context window of one run (`0` disables each). */
  limits: Pick<RunLimits, 'maxCostUsd' | 'maxWallTimeMs' | 'maxInputTokens'>;
  /** Command time per run and timeouts in a row. */
  execution: Partial<ExecutionLimits>;
  /** Identical action + observation pairs in a row that end the run (0 disables). */
  stuckThreshold: number;
  pricing: ModelPricing;
  /** The id of this run's prompt message: usage after it counts against this run's budget. */
  promptMessageId: string;
  /** The tool whose calls run shell commands (default `execute`). */
  shellToolName?: string;
  /**
   * Tools that spend on the run's behalf (default `task`: a subagent's model calls): the
   * `costUsd` of their result's artifact counts against the run's budget.
   */
  delegationToolNames?: readonly string[];
  clock: WallClock;
  events: MiddlewareEventSink;
  /**
   * When set, a run whose next call would cross its dollar budget pauses instead of ending
   * `exit_cost`: the port records the pause and asks in the source channel, then the run ends
   * `exit_budget_paused` at its last checkpoint. A port that fails leaves the usual `exit_cost`.
   */
  budgetPause?: BudgetPausePort;
}

/** What a run had spent when its next call would have crossed its budget. */
export interface BudgetPause {
  spentUsd: number;
  budgetUsd: number;
  /** The estimate of the call that was not made. */
  nextCallUsd: number;
}

/** Where a run's budget pause is recorded and said (the runner's `RunBudgets`). */
export interface BudgetPausePort {
  pause(pause: BudgetPause): Promise<void>;
}

/** Rough prompt size: four characters a token, the usual rule of thumb across tokenizers. */
export function estimateTokens(messages: readonly BaseMessage[]): number {
  let chars = 0;
  for (const message of messages) {
    chars +=
      typeof message.content === 'string'
        ? message.content.length
        : JSON.stringify(message.content).length;
    if (AIMessage.isInstance(message)) chars += JSON.stringify(message.tool_calls ?? []).length;
  }
  return Math.ceil(chars / 4);
}

/** What a model answer cost: the provider's own figure when it gave one, else the list price. */
function costOf(message: AIMessage, pricing: ModelPricing): number {
  const reported = (message.response_metadata as { cost_usd?: unknown } | undefined)?.cost_usd;
  if (typeof reported === 'number' && Number.isFinite(reported)) return reported;
  const usage = message.usage_metadata;
  if (!usage) return 0;
  return pricing.costUsd({ inputTokens: usage.input_tokens, outputTokens: usage.output_tokens });
}

/** What a delegating tool's result says it spent (its artifact's `costUsd`), else 0. */
function delegatedSpend(
  message: ToolMessage,
  tool: string | undefined,
  delegation: ReadonlySet<string>,
): number {
  if (!delegation.has(tool ?? '')) return 0;
  const spent = (message.artifact as { costUsd?: unknown } | undefined)?.costUsd;
  return typeof spent === 'number' && Number.isFinite(spent) && spent > 0 ? spent : 0;
}

function actionOf(call: { name: string; args: unknown }): string {
  return `${call.name} ${JSON.stringify(call.args)}`;
}

/** The run's limits, rebuilt from the conversation the first time a process sees the run. */
class RunLedger {
  readonly guard: LimitGuard;
  readonly execution: ExecutionTracker;
  readonly stuck: StuckDetector | null;
  /** Set by a tool call, raised before the next paid call. */
  pending: LimitVerdict = { ok: true };
  lastCallCostUsd = 0;

  constructor(
    private readonly options: RunLimitsOptions,
    history: readonly BaseMessage[],
  ) {
    this.guard = new LimitGuard({ ...options.limits, maxModelCalls: 0 }, options.clock);
    this.execution = new ExecutionTracker(options.execution);
    this.stuck = options.stuckThreshold > 0 ? new StuckDetector(options.stuckThreshold) : null;
    const start = history.findIndex((message) => message.id === options.promptMessageId);
    for (const message of start < 0 ? [] : history.slice(start + 1)) {
      if (AIMessage.isInstance(message)) this.record(message);
      else if (ToolMessage.isInstance(message)) this.recordDelegated(message);
    }
  }

  /** A subagent's spending, carried on its tool result, counts against the run's budget. */
  recordDelegated(message: ToolMessage, tool = message.name): void {
    const costUsd = delegatedSpend(message, tool, this.delegation);
    if (costUsd > 0) this.guard.addSpend({ costUsd, tokensSent: 0, tokensReceived: 0 });
  }

  private get delegation(): ReadonlySet<string> {
    return new Set(this.options.delegationToolNames ?? ['task']);
  }

  record(message: AIMessage): number {
    const costUsd = costOf(message, this.options.pricing);
    const usage = message.usage_metadata;
    this.guard.afterModelCall({
      costUsd,
      tokensSent: usage?.input_tokens ?? 0,
      tokensReceived: usage?.output_tokens ?? 0,
    });
    this.lastCallCostUsd = costUsd;
    return costUsd;
  }
}

/**
 * Pauses the run at its budget: tells the port, then ends the run `exit_budget_paused`. Returns
 * only when the port failed (the caller then stops the run as usual).
 */
async function pauseAtBudget(
  port: BudgetPausePort,
  pause: BudgetPause,
  verdict: Extract<LimitVerdict, { ok: false }>,
  events: MiddlewareEventSink,
): Promise<void> {
  try {
    await port.pause(pause);
  } catch {
    return;
  }
  const message = `Paused at the budget: ${verdict.message}`;
  events.emit({ type: 'run_limit_reached', reason: 'exit_budget_paused', message });
  throw new LoopExitError('exit_budget_paused', message, { ...pause });
}

function stop(verdict: Extract<LimitVerdict, { ok: false }>, events: MiddlewareEventSink): never {
  events.emit({ type: 'run_limit_reached', reason: verdict.reason, message: verdict.message });
  throw new LoopExitError(verdict.reason, verdict.message);
}

/**
 * SWE-agent's run limits, checked **before** each paid model call so the call that would cross
 * a limit is never made: the dollar budget (the estimate is the prompt at list price plus an
 * answer as long as the last one, or the last call's reported cost when larger), the wall-clock
 * limit, the context window, the total command time and consecutive command timeouts, and stuck
 * detection (the same action with the same observation repeated). A limit ends the run by
 * throwing a {@link LoopExitError} with its exit reason; the runner then autosubmits the diff.
 * With `budgetPause`, the budget pauses the run instead (`exit_budget_paused`, nothing submitted).
 * Every call's cost and the run's totals are reported through the event sink, and an answer
 * without a provider-reported cost gets one computed from the list price.
 */
export function runLimitsMiddleware(options: RunLimitsOptions): AgentMiddleware {
  const shellTool = options.shellToolName ?? 'execute';
  let ledger: RunLedger | undefined;
  return createMiddleware({
    name: 'run-limits',
    wrapModelCall: async (request, handler) => {
      const run = (ledger ??= new RunLedger(options, request.state.messages));
      if (!run.pending.ok) stop(run.pending, options.events);
      const step = run.execution.beforeStep();
      if (!step.ok) stop(step, options.events);
      const inputTokens = estimateTokens(request.messages);
      const estimate = Math.max(options.pricing.estimateCallUsd(inputTokens), run.lastCallCostUsd);
      const verdict = run.guard.beforeModelCall({ inputTokens, costUsd: estimate });
      if (!verdict.ok && verdict.reason === 'exit_cost' && options.budgetPause) {
        const spentUsd = run.guard.stats().instanceCost;
        const pause = { spentUsd, budgetUsd: options.limits.maxCostUsd, nextCallUsd: estimate };
        await pauseAtBudget(options.budgetPause, pause, verdict, options.events);
      }
      if (!verdict.ok) stop(verdict, options.events);
      const answer = await handler(request);
      if (!AIMessage.isInstance(answer)) return answer;
      const costUsd = run.record(answer);
      answer.response_metadata = { ...answer.response_metadata, cost_usd: costUsd };
      const totals = run.guard.stats();
      options.events.emit({
        type: 'model_call_cost',
        costUsd,
        totals: {
          costUsd: totals.instanceCost,
          tokensSent: totals.tokensSent,
          tokensReceived: totals.tokensReceived,
          calls: totals.apiCalls,
        },
      });
      return answer;
    },
    wrapToolCall: async (request, handler) => {
      const started = options.clock.nowMs();
      const result = await handler(request);
      const run = ledger;
      if (!run || !ToolMessage.isInstance(result)) return result;
      run.recordDelegated(result, request.toolCall.name);
      if (request.toolCall.name === shellTool) {
        const artifact = result.artifact as { timedOut?: unknown } | undefined;
        const verdict = run.execution.recordCommand({
          seconds: (options.clock.nowMs() - started) / 1000,
          timedOut: artifact?.timedOut === true,
        });
        if (!verdict.ok && run.pending.ok) run.pending = verdict;
      }
      const observation = typeof result.content === 'string' ? result.content : '';
      const stuck = run.stuck?.record(actionOf(request.toolCall), observation);
      if (stuck?.stuck && run.pending.ok) {
        run.pending = { ok: false, reason: stuck.reason, message: stuck.message };
      }
      return result;
    },
  });
}
