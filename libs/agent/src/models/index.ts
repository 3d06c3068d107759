export {
  EFFORT_LEVELS,
  HOSTED_MODELS,
  PATTERN_MODELS,
  findHostedModel,
  type EffortRules,
  type ModelCatalogueEntry,
  type ModelProvider,
  type ReasoningEffort,
} from './model-catalogue.js';
export { parseModelSpec, supportedModelSpecs, type ModelRef } from './model-spec.js';
export {
  resolveModel,
  validateEffort,
  isReasoningEffort,
  type ModelChoice,
  type ModelChoiceSource,
  type ModelResolutionInput,
  type ResolvedModel,
} from './model-resolution.js';
export {
  costOf,
  addUsage,
  usageFromMessage,
  type ModelCost,
  type TokenUsage,
} from './model-cost.js';
export { toModelError, providerFailureError, type ProviderFailure } from './model-errors.js';
export {
  assertProviderCredentials,
  PROVIDER_CREDENTIAL_ENV,
  type ModelCredentials,
} from './model-credentials.js';
export { modelProblem, type ModelProblem } from './model-check.js';
export type { CannedResponse, CannedToolCall, CannedError } from './canned/canned-response.js';
export { parseModelScript, loadModelScript } from './scripted/model-script.js';
export {
  parseRecordedRun,
  loadRecordedRun,
  toolCallsForAction,
  REPLAY_SHELL_TOOL,
  REPLAY_SUBMIT_TOOL,
} from './replay/recorded-run.js';
