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
  /** The spec as written, e.g. `claude-opus-4-6`, `openai-compatible:qwen2.5-coder:7b`. */
  readonly spec: string;
  readonly provider: ModelProvider;
  /** The id sent to the provider; for `scripted` and `replay`, the file path. */
  readonly modelId: string;
  readonly entry: ModelCatalogueEntry;
}

const PREFIXED_PROVIDERS = ['openai-compatible', 'scripted', 'replay'] as const;

function patternEntry(provider: ModelProvider): ModelCatalogueEntry {
  const entry = PATTERN_MODELS.find((candidate) => candidate.provider === provider);
  if (entry === undefined) throw new AppError('INTERNAL', `no pattern row for ${provider}`);
  return entry;
}

/** The specs a user may write, for error messages and the dashboard's picker. */
export function supportedModelSpecs(): string[] {
  return [...HOSTED_MODELS, ...PATTERN_MODELS].map((entry) => entry.modelId);
}

/**
 * Parses a model spec. Bare ids must be rows of the hosted table; `openai-compatible:`,
 * `scripted:` and `replay:` take everything after the first colon (Ollama tags contain colons).
 * An unknown or empty spec is a BAD_REQUEST naming the supported specs.
 */
export function parseModelSpec(spec: string): ModelRef {
  const trimmed = spec.trim();
  const colon = trimmed.indexOf(':');
  const prefix = colon < 0 ? '' : trimmed.slice(0, colon);
  const prefixed = PREFIXED_PROVIDERS.find((provider) => provider === prefix);
  if (prefixed !== undefined) {
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
  const entry = findHostedModel(trimmed);
  if (entry === undefined) {
    const supported = supportedModelSpecs();
    throw new AppError(
      'BAD_REQUEST',
      `unknown model "${spec}"; supported: ${supported.join(', ')}`,
      { details: { spec, supported } },
    );
  }
  return { spec: trimmed, provider: entry.provider, modelId: entry.modelId, entry };
}
