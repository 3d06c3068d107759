/** Where a model's calls go. `scripted` and `replay` never leave the process. */
export type ModelProvider = 'anthropic' | 'openai' | 'openai-compatible' | 'scripted' | 'replay';

/** Every reasoning-effort level any provider accepts; each model allows a subset. */
export const EFFORT_LEVELS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

/** A reasoning-effort level. */
export type ReasoningEffort = (typeof EFFORT_LEVELS)[number];

/** How a model takes reasoning effort, when it takes it at all. */
export interface EffortRules {
  /** The levels the model accepts, in increasing order of effort. */
  readonly levels: readonly ReasoningEffort[];
  /** The level used when nothing in the precedence chain names one. */
  readonly defaultLevel: ReasoningEffort;
}

/** One row of the model table. Prices are US dollars per million tokens. */
export interface ModelCatalogueEntry {
  readonly provider: ModelProvider;
  /** The id sent to the provider (for `openai-compatible`, scripted and replay: a pattern row). */
  readonly modelId: string;
  readonly label: string;
  /** Input tokens the model accepts per call; null when the endpoint decides (self-hosted). */
  readonly contextWindow: number | null;
  readonly inputPricePerMillion: number;
  readonly outputPricePerMillion: number;
  /** Null when the model takes no reasoning-effort setting. */
  readonly effort: EffortRules | null;
}

const OPUS_EFFORT: EffortRules = { levels: ['low', 'medium', 'high'], defaultLevel: 'high' };
const CLAUDE_46_EFFORT: EffortRules = {
  levels: ['low', 'medium', 'high', 'max'],
  defaultLevel: 'high',
};
const GPT5_EFFORT: EffortRules = {
  levels: ['minimal', 'low', 'medium', 'high'],
  defaultLevel: 'medium',
};
const GPT51_EFFORT: EffortRules = {
  levels: ['none', 'low', 'medium', 'high'],
  defaultLevel: 'none',
};
const GPT52_EFFORT: EffortRules = {
  levels: ['none', 'low', 'medium', 'high', 'xhigh'],
  defaultLevel: 'none',
};
const O_SERIES_EFFORT: EffortRules = { levels: ['low', 'medium', 'high'], defaultLevel: 'medium' };

function row(
  provider: ModelProvider,
  modelId: string,
  label: string,
  contextWindow: number | null,
  prices: readonly [number, number],
  effort: EffortRules | null,
): ModelCatalogueEntry {
  const [inputPricePerMillion, outputPricePerMillion] = prices;
  return {
    provider,
    modelId,
    label,
    contextWindow,
    inputPricePerMillion,
    outputPricePerMillion,
    effort,
  };
}

/**
 * The supported hosted models. Prices are the providers' list prices for standard (non-batch,
 * non-cached) tokens at the time of writing; update the row when a provider changes them.
 */
export const HOSTED_MODELS: readonly ModelCatalogueEntry[] = [
  row('anthropic', 'claude-opus-4-6', 'Claude Opus 4.6', 1_000_000, [5, 25], CLAUDE_46_EFFORT),
  row('anthropic', 'claude-sonnet-4-6', 'Claude Sonnet 4.6', 1_000_000, [3, 15], CLAUDE_46_EFFORT),
  row('anthropic', 'claude-opus-4-5', 'Claude Opus 4.5', 200_000, [5, 25], OPUS_EFFORT),
  row('anthropic', 'claude-sonnet-4-5', 'Claude Sonnet 4.5', 200_000, [3, 15], null),
  row('anthropic', 'claude-haiku-4-5', 'Claude Haiku 4.5', 200_000, [1, 5], null),
  row('anthropic', 'claude-opus-4-1', 'Claude Opus 4.1', 200_000, [15, 75], null),
  row('openai', 'gpt-5.2', 'GPT-5.2', 400_000, [1.75, 14], GPT52_EFFORT),
  row('openai', 'gpt-5.1', 'GPT-5.1', 400_000, [1.25, 10], GPT51_EFFORT),
  row('openai', 'gpt-5', 'GPT-5', 400_000, [1.25, 10], GPT5_EFFORT),
  row('openai', 'gpt-5-mini', 'GPT-5 mini', 400_000, [0.25, 2], GPT5_EFFORT),
  row('openai', 'gpt-5-nano', 'GPT-5 nano', 400_000, [0.05, 0.4], GPT5_EFFORT),
  row('openai', 'gpt-4.1', 'GPT-4.1', 1_047_576, [2, 8], null),
  row('openai', 'gpt-4.1-mini', 'GPT-4.1 mini', 1_047_576, [0.4, 1.6], null),
  row('openai', 'o3', 'o3', 200_000, [2, 8], O_SERIES_EFFORT),
  row('openai', 'o4-mini', 'o4-mini', 200_000, [1.1, 4.4], O_SERIES_EFFORT),
];

/**
 * Pattern rows: the part after the prefix is free (a model served by Ollama or vLLM, or a file).
 * They cost nothing by our accounting and take no effort setting.
 */
export const PATTERN_MODELS: readonly ModelCatalogueEntry[] = [
  row(
    'openai-compatible',
    'openai-compatible:<model>',
    'OpenAI-compatible endpoint',
    null,
    [0, 0],
    null,
  ),
  row('scripted', 'scripted:<file>', 'Scripted responses (tests, demos)', null, [0, 0], null),
  row('replay', 'replay:<file>', 'Replay of a recorded run', null, [0, 0], null),
];

/** A hosted model's row by id, or undefined when the id is not in the table. */
export function findHostedModel(modelId: string): ModelCatalogueEntry | undefined {
  return HOSTED_MODELS.find((entry) => entry.modelId === modelId);
}
