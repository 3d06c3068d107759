import { CARAVEL_BLOCKLIST, type ResolvedModel } from '@caravel/agent';
import type {
  BudgetPausePort,
  ConversationSummarizer,
  MiddlewareStackOptions,
} from '@caravel/middleware';
import { createShaper, type ToolOptions } from '@caravel/tools';
import type { AgentRunnerConfig } from '../agent-runner.config.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { contextWindowOf, pricingFor } from './model-pricing.js';
import { promptMessageId } from './run-stream.js';
import { sandboxSyntaxChecker } from './sandbox-syntax-checker.js';

/** What a run's loop discipline depends on beyond the team's limits. */
export interface LoopDisciplineInputs {
  runId: string;
  workspace: Pick<ThreadWorkspace, 'sandbox' | 'tools'>;
  /** This run's dollar budget (default `RUN_BUDGET_USD`). */
  budgetUsd?: number;
  /** Where the run pauses at its budget (`RunBudgets`); without it the budget ends the run. */
  budgetPause?: BudgetPausePort;
  /** What summarises the run's older turns (its own model): asked only when its window is known. */
  summarizer: () => ConversationSummarizer;
}

/** How late `execute` clips a command's output when long outputs go to files (the file holds it). */
export const OFFLOADED_COMMAND_CHARS = 400_000;

/** The curated tools' options: the command timeout, and late clipping when outputs are offloaded. */
export function toolOptionsFor(limits: AgentRunnerConfig['run']): Partial<ToolOptions> {
  return {
    defaultExecTimeoutMs: limits.commandTimeoutMs,
    ...(limits.offloadOutputChars > 0
      ? { shapeCommandOutput: createShaper(OFFLOADED_COMMAND_CHARS) }
      : {}),
  };
}

/** Long tool outputs written to files in the run's sandbox (`RUN_OFFLOAD_OUTPUT_CHARS`). */
function offloading(
  limits: AgentRunnerConfig['run'],
  inputs: LoopDisciplineInputs,
): Pick<MiddlewareStackOptions, 'offloadToolOutput'> {
  if (limits.offloadOutputChars <= 0) return {};
  const store = {
    save: async (path: string, content: string) => {
      await inputs.workspace.tools.writeFile(path, content);
    },
  };
  return { offloadToolOutput: { maxChars: limits.offloadOutputChars, store } };
}

/** SWE-agent's requery rules and run limits, from the team's configuration. */
export function loopDiscipline(
  limits: AgentRunnerConfig['run'],
  model: ResolvedModel,
  inputs: LoopDisciplineInputs,
): Pick<MiddlewareStackOptions, 'requery' | 'runLimits' | 'contextWindow' | 'offloadToolOutput'> {
  const window = contextWindowOf(model);
  return {
    ...offloading(limits, inputs),
    // A model whose window is unknown (scripted, replay, an unlisted one) is never summarised.
    contextWindow: {
      contextWindow: window,
      keepObservations: limits.keepObservations,
      ...(window > 0 ? { summarizer: inputs.summarizer() } : {}),
    },
    requery: {
      validator: {
        blocklist: CARAVEL_BLOCKLIST,
        multilineCommands: [],
        syntaxChecker: sandboxSyntaxChecker(inputs.workspace.sandbox),
      },
      maxRequeries: limits.maxRequeries,
    },
    runLimits: {
      limits: {
        maxCostUsd: inputs.budgetUsd ?? limits.budgetUsd,
        maxWallTimeMs: limits.maxWallTimeMs,
        maxInputTokens: window,
      },
      execution: {
        maxTotalExecutionSeconds: limits.maxCommandSeconds,
        maxConsecutiveTimeouts: limits.maxConsecutiveTimeouts,
      },
      stuckThreshold: limits.stuckThreshold,
      pricing: pricingFor(model),
      promptMessageId: promptMessageId(inputs.runId),
      ...(inputs.budgetPause ? { budgetPause: inputs.budgetPause } : {}),
    },
  };
}
