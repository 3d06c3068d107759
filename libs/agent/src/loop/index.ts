export {
  EXIT_REASONS,
  isExitReason,
  isExitStatus,
  parseExitStatus,
  submittedAfter,
  autosubmitsOn,
  isCleanSubmission,
  type ExitReason,
  type ExitStatus,
  type ExitStatusParts,
} from './exit-status.js';
export { LoopExitError, isLoopExit, exitReasonOf } from './loop-exit.error.js';
export {
  concludeRun,
  concludeSubmitted,
  CONCLUSION_OBSERVATIONS,
  type DiffSource,
  type RunConclusion,
  type ConcludeRunOptions,
} from './autosubmit.js';
export { DEFAULT_LOOP_TEMPLATES, renderTemplate, type LoopTemplates } from './loop-templates.js';
export {
  shapeObservation,
  shapeOutput,
  DEFAULT_SHAPING,
  type CommandResult,
  type ObservationShapingConfig,
  type ShapedObservation,
  type TruncationMode,
} from './observation-shaper.js';
export {
  CONTROL_TOKENS,
  detectControlSignal,
  type ControlSignal,
  type DetectedSignal,
} from './control-tokens.js';
export { splitCommandSegments } from './command-segments.js';
export {
  CARAVEL_BLOCKLIST,
  DEFAULT_BLOCKLIST,
  EXTRA_INTERACTIVE_PREFIXES,
  findBlockedCommand,
  type BlocklistConfig,
  type BlockedCommand,
  type FlagExemption,
} from './blocklist.js';
export {
  guardMultilineCommands,
  type MultilineCommand,
  type MultilineGuardResult,
} from './multiline-guard.js';
export {
  validateAction,
  requeryMessage,
  isExitAction,
  CONTENT_POLICY_ERROR_CODE,
  type ParsedOutput,
  type OutputFailure,
  type SyntaxChecker,
  type SyntaxCheckResult,
  type ActionValidation,
  type ActionValidatorConfig,
} from './action-validator.js';
export {
  queryWithRequery,
  DEFAULT_MAX_REQUERIES,
  type FailedAttempt,
  type StepQueryOutcome,
  type RequeryLoopDeps,
} from './requery-loop.js';
export {
  LimitGuard,
  DEFAULT_RUN_LIMITS,
  type RunLimits,
  type ModelCallEstimate,
  type ModelCallUsage,
  type ModelStats,
  type LimitVerdict,
  type WallClock,
} from './limit-guard.js';
export {
  ExecutionTracker,
  DEFAULT_EXECUTION_LIMITS,
  type ExecutionLimits,
  type ExecutedCommand,
} from './execution-tracker.js';
export { StuckDetector, DEFAULT_STUCK_THRESHOLD, type StuckVerdict } from './stuck-detector.js';
export {
  selectByScore,
  selectByChooser,
  adjustScore,
  sumStats,
  INVALID_SCORE,
  type AttemptResult,
  type RecordedAttempt,
  type AttemptScorer,
  type AttemptChooser,
  type SelectionStrategy,
  type Selection,
} from './retry-select.js';
export { runRetryLoop, type RetryLoopConfig, type RetryLoopDeps } from './retry-loop.js';
export {
  MAX_CHOOSER_SUBMISSION_CHARS,
  parseChoice,
  parseScore,
  reviewChooser,
  reviewScorer,
  type ReviewChooserOptions,
  type ReviewModel,
  type ReviewScorerOptions,
} from './attempt-review.js';
