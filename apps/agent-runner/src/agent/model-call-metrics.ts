import { modelCalls, modelCost, modelTokens } from '@caravel/metrics';
import type { BaseMessage } from '@langchain/core/messages';

/** What one model call used, as the step recorder reads it from the answer. */
export interface ModelCallUsage {
  inputTokens: number;
  outputTokens: number;
  costUsd?: number;
}

/** The model that answered, as its provider names it (capped: it becomes a metric label). */
function modelOf(message: BaseMessage): string {
  const metadata = (message.response_metadata ?? {}) as { model_name?: unknown; model?: unknown };
  const name = metadata.model_name ?? metadata.model;
  return typeof name === 'string' && name.length > 0 ? name.slice(0, 80) : 'unknown';
}

/** Counts one model call, its tokens and its cost in the process's metrics. */
export function countModelCall(message: BaseMessage, usage: ModelCallUsage | undefined): void {
  const model = modelOf(message);
  modelCalls.inc({ model });
  if (!usage) return;
  modelTokens.inc({ model, direction: 'input' }, usage.inputTokens);
  modelTokens.inc({ model, direction: 'output' }, usage.outputTokens);
  if (usage.costUsd !== undefined) modelCost.inc({ model }, usage.costUsd);
}
