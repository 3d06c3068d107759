import { AppError } from '@caravel/errors';
import { EFFORT_LEVELS, type ReasoningEffort } from './model-catalogue.js';
import { parseModelSpec, type ModelRef } from './model-spec.js';

/** One level of model choice. Either field may be absent; `effort` is validated, not trusted. */
export interface ModelChoice {
  readonly model?: string | null;
  readonly effort?: string | null;
}

/** Where a resolved value came from. */
export type ModelChoiceSource = 'thread' | 'profile' | 'team' | 'model-default';

/** The inputs of resolution, highest precedence first. The team default must name a model. */
export interface ModelResolutionInput {
  readonly thread?: ModelChoice | null;
  readonly profile?: ModelChoice | null;
  readonly team: ModelChoice & { readonly model: string };
}

/** A model ready to build: the parsed spec, the effort to send (null: send none), provenance. */
export interface ResolvedModel extends ModelRef {
  readonly effort: ReasoningEffort | null;
  readonly modelSource: Exclude<ModelChoiceSource, 'model-default'>;
  readonly effortSource: ModelChoiceSource | null;
}

type Level = { source: Exclude<ModelChoiceSource, 'model-default'>; choice: ModelChoice };

function present(value: string | null | undefined): value is string {
  return value !== undefined && value !== null && value.trim() !== '';
}

/**
 * Resolves the model of a run by precedence: thread config > user profile > team default.
 *
 * The model comes from the highest level that names one. The effort comes from the highest level
 * at or above that level that names one (a thread may tune the effort of its user's model), else
 * from the model's default. An effort set below the level that chose the model was meant for
 * another model and is ignored. A named effort the model does not accept is a BAD_REQUEST naming
 * the model and its allowed levels.
 */
export function resolveModel(input: ModelResolutionInput): ResolvedModel {
  const levels: Level[] = [
    { source: 'thread', choice: input.thread ?? {} },
    { source: 'profile', choice: input.profile ?? {} },
    { source: 'team', choice: input.team },
  ];
  const modelIndex = levels.findIndex((level) => present(level.choice.model));
  const modelLevel = levels[modelIndex];
  if (modelLevel === undefined || !present(modelLevel.choice.model)) {
    throw new AppError('CONFIG_INVALID', 'no model configured: the team default names none');
  }
  const ref = parseModelSpec(modelLevel.choice.model);
  const effortLevel = levels.slice(0, modelIndex + 1).find((level) => present(level.choice.effort));
  if (effortLevel === undefined || !present(effortLevel.choice.effort)) {
    const fallback = ref.entry.effort?.defaultLevel ?? null;
    return {
      ...ref,
      effort: fallback,
      modelSource: modelLevel.source,
      effortSource: fallback === null ? null : 'model-default',
    };
  }
  const effort = validateEffort(ref, effortLevel.choice.effort, effortLevel.source);
  return { ...ref, effort, modelSource: modelLevel.source, effortSource: effortLevel.source };
}

/**
 * Checks a requested effort against the model's rules and returns it typed. Throws BAD_REQUEST
 * naming the model, the requested level, where it came from and the levels the model allows.
 */
export function validateEffort(ref: ModelRef, requested: string, source: string): ReasoningEffort {
  const rules = ref.entry.effort;
  const level = requested.trim().toLowerCase();
  if (rules === null) {
    throw new AppError(
      'BAD_REQUEST',
      `model "${ref.spec}" takes no reasoning effort, but the ${source} config asks for "${requested}"`,
      { details: { model: ref.spec, requested, source, allowed: [] } },
    );
  }
  const allowed = rules.levels.find((candidate) => candidate === level);
  if (allowed === undefined) {
    throw new AppError(
      'BAD_REQUEST',
      `model "${ref.spec}" does not accept reasoning effort "${requested}" (from the ${source} ` +
        `config); allowed: ${rules.levels.join(', ')}`,
      { details: { model: ref.spec, requested, source, allowed: [...rules.levels] } },
    );
  }
  return allowed;
}

/** Whether a string is any known effort level (not necessarily valid for a given model). */
export function isReasoningEffort(value: string): value is ReasoningEffort {
  return (EFFORT_LEVELS as readonly string[]).includes(value);
}
