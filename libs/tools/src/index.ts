// Ports: what the tools are bound to (the runner adapts the real implementations).
export type * from './ports/tool-sandbox.port.js';
export { replaceExact, type ReplaceExactResult } from './ports/replace-exact.js';
export type { ReplyChannel, ReplyReceipt } from './ports/reply-channel.port.js';
export * from './ports/scm.port.js';

// The tool model and its adapters.
export {
  defineTool,
  errorObservation,
  isModelCorrectable,
  type CaravelTool,
  type ToolCallContext,
  type ToolEffect,
  type ToolResult,
  type ToolSpec,
} from './core/tool-definition.js';
export {
  createShaper,
  DEFAULT_MAX_OBSERVATION_CHARS,
  NO_OUTPUT_MESSAGE,
  shapeObservation,
  timeoutMessage,
  type ObservationShaper,
  type ShapedObservation,
  type ShapeOptions,
} from './core/observation.js';
export { DEFAULT_TOOL_OPTIONS, resolveToolOptions, type ToolOptions } from './core/tool-options.js';
export { globToRegExp, matchesGlob } from './core/glob-pattern.js';
export { sandboxBackend, type SandboxBackendOptions } from './deepagents/sandbox-backend.js';

// The tools and the curated sets.
export { executeTool, type ExecuteOutput } from './tools/execute.tool.js';
export { readFileTool, type ReadFileOutput } from './tools/read-file.tool.js';
export { writeFileTool, type WriteFileOutput } from './tools/write-file.tool.js';
export { editFileTool, type EditFileOutput } from './tools/edit-file.tool.js';
export { lsTool, type LsOutput } from './tools/ls.tool.js';
export { globTool, type GlobOutput } from './tools/glob.tool.js';
export { grepTool, type GrepOutput } from './tools/grep.tool.js';
export { submitTool, type SubmitOutput } from './tools/submit.tool.js';
export { FORFEIT_TOOL_NAME, forfeitTool, type ForfeitOutput } from './tools/forfeit.tool.js';
export {
  confirmingCompletionTool,
  noOpTool,
  type AcknowledgedOutput,
} from './tools/completion.tools.js';
export {
  MAX_REPLY_CHARS,
  replyToUserTool,
  type ReplyToUserOutput,
} from './tools/reply-to-user.tool.js';
export {
  commitAndOpenPrTool,
  namesNoPullRequest,
  type CommitAndOpenPrOutput,
} from './tools/commit-and-open-pr.tool.js';
export {
  agentWorkTools,
  subagentToolsOf,
  type AgentWorkPorts,
  agentStateTools,
  mutatingToolNames,
  type AgentStatePorts,
  CHAT_EFFECTS,
  chatTools,
  curatedTools,
  endsRun,
  readOnlySubset,
  workspaceTools,
  type ChatAgentPorts,
  type MainAgentPorts,
} from './curated-tools.js';

// A pull request as read-only virtual files, for the chat agent asked on it.
export {
  DEFAULT_MAX_DIFF_CHARS,
  DIFF_FILE,
  DIFFS_DIR,
  diffPathOf,
  fileDiff,
  wholeDiff,
} from './pr-chat/pull-request-diff.js';
export {
  DESCRIPTION_FILE,
  FILES_DIR,
  FINDINGS_FILE,
  PullRequestFiles,
  type PullRequestFilesInput,
  type ScmFileReadPort,
} from './pr-chat/pull-request-files.js';
export { pullRequestChatTools, pullRequestDescription } from './pr-chat/pr-chat.tools.js';

export {
  UNTRUSTED_TAG,
  neutraliseUntrustedMarkers,
  quotedName,
  wrapUntrusted,
} from './channel/untrusted-content.js';

// Channel tools (Slack, Linear, Jira, Confluence, reviews, the web) over ports that
// @caravel/integrations implements.
export type * from './channel/channel.ports.js';
export {
  asObservableError,
  defineChannelTool,
  renderChannelMessages,
} from './channel/channel-tool.js';
export { channelTools, type ChannelPorts } from './channel/channel-tools.js';
export { slackTools } from './channel/slack.tools.js';
export { jiraTools, linearTools, renderIssue } from './channel/tracker.tools.js';
export { confluenceTools, webTools } from './channel/wiki-and-web.tools.js';
export { requestPrReviewTool, type RequestPrReviewOutput } from './channel/review.tools.js';
export { githubReadTools, type PullRequestComments } from './channel/github.tools.js';
export {
  renderChangedFiles,
  renderPullRequest,
  renderScmComments,
  renderScmIssue,
} from './channel/scm-render.js';
export {
  MANAGE_BABY_SIT_TOOL_NAME,
  manageBabySitTool,
  type BabySitRequest,
  type BabySitter,
} from './tools/manage-baby-sit.tool.js';
export {
  SCHEDULE_WAKEUP_TOOL_NAME,
  scheduleThreadWakeupTool,
  type ScheduledWakeup,
  type WakeupRequest,
  type WakeupScheduler,
} from './tools/schedule-wakeup.tool.js';
export type {
  PlanStorePort,
  PlatformIssue,
  PlatformIssueReporter,
  RunPeople,
  SavedPlan,
  UserInstructionsPort,
} from './tools/agent-state.ports.js';
export { MAX_PLAN_CHARS, sanitizePlanMarkdown } from './tools/plan-content.js';
export {
  approvePlanTool,
  enterPlanModeTool,
  savePlanTool,
  type EnterPlanModeOutput,
} from './tools/plan.tools.js';
export {
  MAX_USER_INSTRUCTIONS_CHARS,
  reportPlatformIssueTool,
  saveUserInstructionsTool,
} from './tools/agent-profile.tools.js';
export {
  USER_INSTRUCTIONS_TAG,
  neutraliseInstructionMarkers,
  userInstructionsBlock,
  withUserInstructions,
  type PersonInstructions,
} from './tools/agent-profile.instructions.js';
export type {
  SubagentOutcome,
  SubagentPort,
  SubagentTask,
  TodoItem,
  TodoListPort,
} from './tools/agent-work.ports.js';
export { TASK_TOOL_NAME, taskTool } from './tools/task.tool.js';
export {
  MAX_TODOS,
  WRITE_TODOS_TOOL_NAME,
  renderTodos,
  writeTodosTool,
  type WriteTodosOutput,
} from './tools/write-todos.tool.js';
