export { MIDDLEWARE_ORDER, SUBAGENT_MIDDLEWARE, type MiddlewareName } from './middleware-names.js';
export type {
  AgentsFile,
  AgentsFileFinder,
  Clock,
  InfrastructureFailureClassifier,
  MessageQueue,
  MiddlewareEvent,
  MiddlewareEventSink,
  ModelPricing,
  QueuedMessage,
  StepLimitNotice,
  StepLimitNotifier,
  UserInstructionsLookup,
} from './ports.js';
export { RUN_EXIT_STATUSES, type RunExitStatus } from './run-exit.state.js';
export { findAppError } from './error-inspection.js';
export {
  MALFORMED_ARGS_KEY,
  sanitizeToolInputsMiddleware,
  type SanitizeToolInputsOptions,
} from './sanitize-tool-inputs.middleware.js';
export { toolErrorsMiddleware, type ToolErrorsOptions } from './tool-errors.middleware.js';
export {
  modelCallLimitMiddleware,
  type ModelCallLimitOptions,
} from './model-call-limit.middleware.js';
export {
  stepLimitNoticeMiddleware,
  type StepLimitNoticeOptions,
} from './step-limit-notice.middleware.js';
export {
  defaultInfrastructureClassifier,
  sandboxCircuitBreakerMiddleware,
  type SandboxCircuitBreakerOptions,
} from './sandbox-circuit-breaker.middleware.js';
export {
  scopedAgentsMdMiddleware,
  type ScopedAgentsMdOptions,
} from './scoped-agents-md.middleware.js';
export {
  messageIdentityMiddleware,
  turnCallId,
  turnMessageId,
  type MessageIdentityOptions,
} from './message-identity.middleware.js';
export {
  messageQueueMiddleware,
  UNTRUSTED_TAG,
  type MessageQueueOptions,
} from './message-queue.middleware.js';
export {
  queuedIdOf,
  queuedMessageId,
  renderQueuedMessage,
  renderedAuthorsIn,
} from './queued-message.js';
export {
  ensureNoEmptyMessageMiddleware,
  type EnsureNoEmptyMessageOptions,
} from './ensure-no-empty-message.middleware.js';
export {
  modelFallbackMiddleware,
  usableFallback,
  type FallbackModel,
  type ModelFallbackOptions,
  type ModelIdentity,
} from './model-fallback.middleware.js';
export { isRetryableModelError } from './model-errors.js';
export {
  isMalformedThinkingBlock,
  stripEmptyThinkingMiddleware,
  type StripEmptyThinkingOptions,
} from './strip-empty-thinking.middleware.js';
export {
  modelCallTimeoutMiddleware,
  type ModelCallTimeoutOptions,
} from './model-call-timeout.middleware.js';
export { systemClock } from './system-clock.js';
export {
  buildMiddlewareStack,
  type MiddlewarePorts,
  type MiddlewareStackOptions,
} from './build-middleware-stack.js';
export { FOLDED_HOOKS_NAME, FOLDED_MODEL_HOOKS_NAME, foldHooks } from './fold-hooks.js';
export { graphRecursionLimitFor } from './recursion-limit.js';
export { briefAgent, type BriefAgent, type BriefAgentInputs } from './brief-agent.js';
export {
  contextWindowMiddleware,
  summarizedTurns,
  withLastObservations,
  type ContextWindowOptions,
  type ConversationSummarizer,
} from './context-window.middleware.js';
export { requeryMiddleware, type RequeryOptions } from './requery.middleware.js';
export {
  estimateTokens,
  runLimitsMiddleware,
  type BudgetPause,
  type BudgetPausePort,
  type RunLimitsOptions,
} from './run-limits.middleware.js';
export {
  modelRetryMiddleware,
  retryDelayMs,
  type ModelRetryOptions,
} from './model-retry.middleware.js';
export type { AssistantStatusPort, RunPreparationPort } from './ports.js';
export { type PlanModeSettings } from './build-middleware-stack.js';
export { parseShellCommands, type ShellCommand } from './shell-words.js';
export { shellInvocations, type ShellInvocation } from './shell-invocations.js';
export {
  findShellPullRequestWrite,
  findShellReviewVerdict,
  type ShellPolicyViolation,
} from './github-shell-policy.js';
export {
  pullRequestVerdictGuardMiddleware,
  type PullRequestVerdictGuardOptions,
} from './pull-request-verdict-guard.middleware.js';
export {
  pullRequestCreationGuardMiddleware,
  type PullRequestCreationGuardOptions,
  type PullRequestPolicy,
} from './pull-request-creation-guard.middleware.js';
export { excludeToolsMiddleware, type ExcludeToolsOptions } from './exclude-tools.middleware.js';
export {
  planModeMiddleware,
  type AgentMode,
  type PlanModeOptions,
} from './plan-mode.middleware.js';
export {
  slackAssistantStatusMiddleware,
  type SlackAssistantStatusOptions,
} from './slack-assistant-status.middleware.js';
export {
  prepareAgentRunMiddleware,
  sandboxUnreachableNotice,
  type PrepareAgentRunOptions,
} from './prepare-agent-run.middleware.js';
export {
  OFFLOAD_ROOT,
  offloadNotice,
  offloadToolOutputMiddleware,
  type OffloadToolOutputOptions,
  type ToolOutputStore,
} from './offload-tool-output.middleware.js';
