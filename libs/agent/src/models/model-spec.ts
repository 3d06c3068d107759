import { AppError } from '@caravel/errors';
import {
  findHostedModel,
  HOSTED_MODELS,
  PATTERN_MODELS,
  type ModelCatalogueEntry,
  type ModelProvider,
} from './model-catalogue.js';

/** A model spec parsed against the catalogue: which provider, which model (or file), which row. */
export interface ModelRef {
  /** The spec as written, e.g. `claude-opus-4-6`, `anthropic:claude-opus-4-6`, `openai-compatible:qwen2.5-coder:7b`. */
  readonly spec: string;
  readonly provider: ModelProvider;
  /** The id sent to the provider; for `scripted` and `replay`, the file path. */
  readonly modelId: string;
  readonly entry: ModelCatalogueEntry;
}

const PREFIXED_PROVIDERS = ['openai-compatible', 'scripted', 'replay'] as const;

/** Providers of the hosted table, whose rows may be written bare or behind their provider. */
const HOSTED_PROVIDERS = ['anthropic', 'openai'] as const;

function patternEntry(provider: ModelProvider): ModelCatalogueEntry {
  const entry = PATTERN_MODELS.find((candidate) => candidate.provider === provider);
  if (entry === undefined) throw new AppError('INTERNAL', `no pattern row for ${provider}`);
  return entry;
}

/**
 * The specs a user may write, for error messages and the dashboard's picker. Hosted rows are
 * listed bare; `anthropic:<id>` / `openai:<id>` name the same rows.
 */
export function supportedModelSpecs(): string[] {
  return [...HOSTED_MODELS, ...PATTERN_MODELS].map((entry) => entry.modelId);
}

function unknownModel(spec: string): AppError {
  const supported = supportedModelSpecs();
  return new AppError(
    'BAD_REQUEST',
    `unknown model "${spec}"; supported: ${supported.join(', ')} ` +
      '(a hosted model may be written with its provider, e.g. anthropic:claude-sonnet-4-5)',
    { details: { spec, supported } },
  );
}

/** A hosted row named bare (`gpt-5`) or behind its provider (`openai:gpt-5`). */
function parseHosted(spec: string, trimmed: string, prefix: string): ModelRef {
  const hostedPrefix = HOSTED_PROVIDERS.find((provider) => provider === prefix);
  const id = hostedPrefix === undefined ? trimmed : trimmed.slice(prefix.length + 1).trim();
  const entry = findHostedModel(id);
  if (entry === undefined) throw unknownModel(spec);
  if (hostedPrefix !== undefined && entry.provider !== hostedPrefix) {
    throw new AppError(
      'BAD_REQUEST',
      `model "${spec}": ${id} is an ${entry.provider} model, not ${hostedPrefix} ` +
        `(write ${entry.provider}:${id})`,
      { details: { spec, provider: entry.provider } },
    );
  }
  return { spec: trimmed, provider: entry.provider, modelId: entry.modelId, entry };
}

/**
 * Parses a model spec. Hosted models are rows of the hosted table, written bare
 * (`claude-sonnet-4-5`) or behind their provider (`anthropic:claude-sonnet-4-5`, `openai:gpt-5`);
 * `openai-compatible:`, `scripted:` and `replay:` take everything after the first colon (Ollama
 * tags contain colons). An unknown or empty spec is a BAD_REQUEST naming the supported specs.
 */
export function parseModelSpec(spec: string): ModelRef {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(':');
  const prefix = colon < 0 ? '' : trimmed.slice(0, colon);
  const prefixed = PREFIXED_PROVIDERS.find((provider) => provider === prefix);
  if (prefixed === undefined) return parseHosted(spec, trimmed, prefix);
  const rest = trimmed.slice(colon + 1).trim();
  if (rest === '') {
    throw new AppError(
      'BAD_REQUEST',
      `model spec "${spec}" names no model or file after "${prefixed}:"`,
      {
        details: { spec },
      },
    );
  }
  return { spec: trimmed, provider: prefixed, modelId: rest, entry: patternEntry(prefixed) };
}
