export {
  hasTestFileName,
  identifyTestFiles,
  isTestFile,
  isUnderTestDirectory,
  stripTestsPrefix,
} from './rules/test-files.js';
export { placeTestFiles, type TestFilePlacement } from './rules/test-layout.js';
export {
  DEFAULT_SUBSTANTIALITY,
  SWEGEN_FILE_LIST_CAP,
  checkSubstantiality,
  isRelevantSource,
  type RuleCompat,
  type SubstantialityRule,
  type SubstantialityVerdict,
} from './rules/relevant-source.js';
export { extractIssueRefs, normalizeRepo, type IssueRef } from './rules/linked-issues.js';
export { dedupeKeyFor, isRepoName, taskIdFor } from './rules/task-id.js';
export {
  SWEGEN_ERROR_REASONS,
  SWEGEN_EXIT_CODES,
  swegenError,
  swegenErrorReason,
  swegenExitCode,
  type SwegenErrorReason,
} from './errors/swegen-errors.js';
export { abortReason, deadline, type Deadline } from './errors/deadline.js';
export { GitRunner, splitNul } from './git/git-runner.js';
export {
  resolveBase,
  splitPatches,
  type ExtractedTestFile,
  type PatchSplit,
  type PatchSplitInput,
} from './create/patch-split.js';
export type { IssueInfo, PrFile, PrSource, PullRequestInfo } from './pr/pr-source.js';
export { LocalPrSource } from './pr/local-pr-source.js';
export { injectedPrSchema, type InjectedPr } from './pr/pull-request.schema.js';
export {
  SOLVE_SH,
  TEST_COMMAND_PLACEHOLDER,
  TODO_MARKER,
  skeletonDockerfile,
  skeletonTestSh,
  taskToml,
  type EnvironmentFacts,
  type TaskMetadata,
} from './create/skeleton.js';
export { writeTaskSkeleton, type SkeletonInput } from './create/task-writer.js';
export {
  EVALUATION_LIMITS,
  PR_EVALUATION_TOOL,
  evaluatePr,
  evaluationPrompt,
  prEvaluationSchema,
  type PrEvaluation,
} from './create/pr-evaluation.js';
export { findLinkedIssues } from './create/linked-issues.finder.js';
export { ensureCachedRepo, repoCachePath } from './create/repo-cache.js';
export {
  completeSkeleton,
  type CompletionInput,
  type CompletionOutcome,
} from './create/completion-agent.js';
export { EDITABLE_TASK_FILES } from './create/completion-workspace.js';
export { createTask, type CreateTaskOptions, type CreateTaskResult } from './create/create-task.js';
export {
  publishAndRecord,
  type PublishHook,
  type PublishOutcome,
  type TaskToPublish,
} from './create/task-record.js';
export { CreateLog, type CreateRecord } from './state/create-log.js';
export {
  REFERENCE_MAX_AGE_DAYS,
  TaskReferences,
  type TaskReference,
} from './state/task-references.js';
export {
  installsSystemPackages,
  parseDockerfile,
  planHostBuild,
  sourceFetch,
  splitAndList,
  type BuildStep,
  type DockerInstruction,
} from './validate/dockerfile-plan.js';
export { readReward, type RewardOutcome } from './validate/reward.js';
export { readTaskTimeouts, tomlNumbers, type TaskTimeouts } from './validate/task-config.js';
export {
  summaryLine,
  validationPassed,
  type TaskValidation,
  type TrialOutcome,
} from './validate/validation-result.js';
export { validateOnHost, type HostValidationOptions } from './validate/host-validator.js';
export {
  findHarbor,
  harborRunArgs,
  validateWithHarbor,
  type HarborAgent,
} from './validate/harbor-runner.js';
export { readHarborJob, type HarborJobOutcome } from './validate/harbor-job.js';
export {
  discoverTasks,
  repoCacheDir,
  validateTask,
  validateTasks,
  type ValidateOptions,
  type ValidationRunner,
} from './validate/validate-tasks.js';
export { GithubPrSource, nextLink, type GithubPrSourceOptions } from './pr/github-pr-source.js';
export {
  FAILURE_BUCKETS,
  FarmState,
  type FailureCategory,
  type PrOutcome,
} from './farm/farm-state.js';
export type { FarmLastRun, FarmStateJson } from './farm/farm-state.schema.js';
export {
  LocalStateStore,
  mirrorPathFor,
  readStateFile,
  type StateStore,
} from './farm/state-store.js';
export { loadSkipList, parseResumeFrom, streamMergedPrs } from './farm/pr-stream.js';
export { farmPr, type FarmCreateSettings, type PrResult } from './farm/farm-hand.js';
export { runFarm, type FarmOptions, type FarmResult } from './farm/farm.js';
export {
  gitUrlFor,
  repoSlug,
  resolvePublishConfig,
  type PublishConfig,
  type ResolvedPublishConfig,
} from './publish/publish-config.js';
export { DatasetApi } from './publish/dataset-api.js';
export {
  TaskPublisher,
  publishHookOf,
  taskPullText,
  type PublishRequest,
  type PublishResult,
} from './publish/task-publisher.js';
export { GitStateStore } from './publish/git-state-store.js';
export {
  TRIAL_CLASSES,
  classesFor,
  taskVerdict,
  trialPassed,
  type JudgedTrial,
  type TaskVerdict,
  type TaskVerdictKind,
  type TrialClass,
} from './analyze/task-verdict.js';
export {
  TRIAL_CLASSIFICATION_TOOL,
  classificationPrompt,
  classifyTrial,
  type TrialClassification,
  type TrialEvidence,
} from './analyze/trial-classifier.js';
export {
  condenseTrajectory,
  runAgentTrial,
  type AgentTrialInput,
  type AgentTrialRun,
  type AgentTrialSettings,
} from './analyze/agent-trial.js';
export {
  analyzeTask,
  type AnalyzeOptions,
  type AnalyzedTrial,
  type TaskAnalysis,
} from './analyze/analyze-task.js';
export { buildOnHost, chownToSandbox, type BuiltEnvironment } from './validate/host-build.js';
export type { BuildEgressOptions } from './validate/build-egress.js';
export { runHostTrial, type HostTrialInput } from './validate/host-trial.js';
export { hostWorkdir } from './analyze/trial-workspace.js';
