import { AppError } from '@caravel/errors';
import type { ModelCatalogueEntry } from './model-catalogue.js';

/** Token counts of one call (or of a run, summed). */
export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** Dollars spent, split the way providers bill. */
export interface ModelCost {
  readonly inputUsd: number;
  readonly outputUsd: number;
  readonly totalUsd: number;
}

const PER_MILLION = 1_000_000;

function checkCount(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0) {
    throw new AppError(
      'BAD_REQUEST',
      `token count ${name} must be a finite number >= 0, got ${value}`,
      {
        details: { [name]: value },
      },
    );
  }
}

/**
 * The dollar cost of `usage` at the row's list prices. Rounded to a micro-dollar so sums over a
 * run stay stable; negative or non-finite counts are a BAD_REQUEST rather than a silent zero.
 */
export function costOf(entry: ModelCatalogueEntry, usage: TokenUsage): ModelCost {
  checkCount('inputTokens', usage.inputTokens);
  checkCount('outputTokens', usage.outputTokens);
  const inputUsd = roundMicro((usage.inputTokens * entry.inputPricePerMillion) / PER_MILLION);
  const outputUsd = roundMicro((usage.outputTokens * entry.outputPricePerMillion) / PER_MILLION);
  return { inputUsd, outputUsd, totalUsd: roundMicro(inputUsd + outputUsd) };
}

/** Adds usages, e.g. the calls of one run. */
export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
  };
}

/**
 * Reads LangChain's `usage_metadata` from a model response (every provider class fills it), or
 * null when the response carries none.
 */
export function usageFromMessage(message: {
  usage_metadata?: { input_tokens: number; output_tokens: number };
}): TokenUsage | null {
  const usage = message.usage_metadata;
  if (usage === undefined) return null;
  return { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
}

function roundMicro(value: number): number {
  return Math.round(value * PER_MILLION) / PER_MILLION;
}
