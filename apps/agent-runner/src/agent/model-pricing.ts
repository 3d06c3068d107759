import { costOf, findHostedModel, type ResolvedModel } from '@caravel/agent';
import type { ModelPricing } from '@caravel/middleware';

/** The answer length assumed before a call when the run has no answer of its own to go by. */
export const ASSUMED_ANSWER_TOKENS = 1024;

/** A model with no list price (scripted, replay, self-hosted): it costs nothing by our books. */
const UNPRICED: ModelPricing = { estimateCallUsd: () => 0, costUsd: () => 0 };

/**
 * List prices of the run's model for the budget check. Hosted models are priced from the model
 * table; answers whose provider reports a cost (scripted models can) use that figure instead.
 */
export function pricingFor(model: Pick<ResolvedModel, 'provider' | 'modelId'>): ModelPricing {
  const entry = findHostedModel(model.modelId);
  if (!entry || entry.provider !== model.provider) return UNPRICED;
  return {
    estimateCallUsd: (inputTokens) =>
      costOf(entry, { inputTokens, outputTokens: ASSUMED_ANSWER_TOKENS }).totalUsd,
    costUsd: (usage) => costOf(entry, usage).totalUsd,
  };
}

/** The model's context window in tokens, or 0 (no check) when the endpoint decides. */
export function contextWindowOf(model: Pick<ResolvedModel, 'provider' | 'modelId'>): number {
  const entry = findHostedModel(model.modelId);
  return entry && entry.provider === model.provider ? (entry.contextWindow ?? 0) : 0;
}
