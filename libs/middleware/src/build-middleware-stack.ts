import type { AgentMiddleware } from 'langchain';
import { contextWindowMiddleware, type ContextWindowOptions } from './context-window.middleware.js';
import { ensureNoEmptyMessageMiddleware } from './ensure-no-empty-message.middleware.js';
import { messageIdentityMiddleware } from './message-identity.middleware.js';
import { messageQueueMiddleware } from './message-queue.middleware.js';
import { MIDDLEWARE_ORDER, type MiddlewareName } from './middleware-names.js';
import { modelCallLimitMiddleware } from './model-call-limit.middleware.js';
import { modelCallTimeoutMiddleware } from './model-call-timeout.middleware.js';
import {
  modelFallbackMiddleware,
  type FallbackModel,
  type ModelIdentity,
} from './model-fallback.middleware.js';
import { excludeToolsMiddleware } from './exclude-tools.middleware.js';
import {
  OFFLOAD_ROOT,
  offloadToolOutputMiddleware,
  type ToolOutputStore,
} from './offload-tool-output.middleware.js';
import { planModeMiddleware, type AgentMode } from './plan-mode.middleware.js';
import { prepareAgentRunMiddleware } from './prepare-agent-run.middleware.js';
import {
  pullRequestCreationGuardMiddleware,
  type PullRequestPolicy,
} from './pull-request-creation-guard.middleware.js';
import { pullRequestVerdictGuardMiddleware } from './pull-request-verdict-guard.middleware.js';
import { slackAssistantStatusMiddleware } from './slack-assistant-status.middleware.js';
import type {
  AgentsFileFinder,
  AssistantStatusPort,
  Clock,
  InfrastructureFailureClassifier,
  MessageQueue,
  MiddlewareEventSink,
  RunPreparationPort,
  StepLimitNotifier,
  UserInstructionsLookup,
} from './ports.js';
import { sandboxCircuitBreakerMiddleware } from './sandbox-circuit-breaker.middleware.js';
import { sanitizeToolInputsMiddleware } from './sanitize-tool-inputs.middleware.js';
import { scopedAgentsMdMiddleware } from './scoped-agents-md.middleware.js';
import { stepLimitNoticeMiddleware } from './step-limit-notice.middleware.js';
import { stripEmptyThinkingMiddleware } from './strip-empty-thinking.middleware.js';
import { modelRetryMiddleware } from './model-retry.middleware.js';
import { requeryMiddleware, type RequeryOptions } from './requery.middleware.js';
import { runLimitsMiddleware, type RunLimitsOptions } from './run-limits.middleware.js';
import { toolErrorsMiddleware } from './tool-errors.middleware.js';

/** The ports the runner implements for one run. */
export interface MiddlewarePorts {
  agentsFiles: AgentsFileFinder;
  queue: MessageQueue;
  notifier: StepLimitNotifier;
  events: MiddlewareEventSink;
  clock: Clock;
  /** The sandbox check and turn checkpoint before the first model call (default: nothing to do). */
  preparation?: RunPreparationPort;
  /** The source channel's "is working…" status (default: none, e.g. not a Slack thread). */
  assistantStatus?: AssistantStatusPort;
  /** People's standing instructions, attached to their queued messages (default: none). */
  userInstructions?: UserInstructionsLookup;
}

/** Plan mode's settings for one run. */
export interface PlanModeSettings {
  initialMode: AgentMode;
  /** Tools hidden while planning (the runner lists its `write` tools and the PR tool). */
  mutatingTools: readonly string[];
}

const NO_PREPARATION: RunPreparationPort = {
  ensureSandbox: () => Promise.resolve(),
  snapshotTurn: () => Promise.resolve(),
  notifyUser: () => Promise.resolve(),
};

const NO_STATUS: AssistantStatusPort = {
  setStatus: () => Promise.resolve(),
  clearStatus: () => Promise.resolve(),
};

/** Everything one run's middleware stack needs. */
export interface MiddlewareStackOptions {
  threadId: string;
  /** The run and its prompt: the run's answers and calls are identified by their turn in it. */
  run: { runId: string; promptMessageId: string };
  ports: MiddlewarePorts;
  /** Most model calls one run may make. */
  modelCallLimit: number;
  /** Tell the source channel when this many model calls remain. */
  stepLimitNoticeAt: number;
  /** The tool the agent answers the user with (e.g. `slack_thread_reply`). */
  replyToolName: string;
  /** Nudges per user message before the run ends with `exit_no_reply` (default 2). */
  maxNudges?: number;
  /** Whether a queued message's author may be read as instructions. */
  isTrustedAuthor: (author: string) => boolean;
  /** Consecutive sandbox failures that stop the run. */
  circuitBreakerThreshold: number;
  classifyInfrastructureFailure?: InfrastructureFailureClassifier;
  primaryModel: ModelIdentity;
  fallbackModel?: FallbackModel;
  /** Longest single model call, in milliseconds. */
  modelCallTimeoutMs: number;
  /** Retries of a model call that failed for a retryable reason (default 3). */
  modelRetries?: number;
  maxToolArgBytes?: number;
  readToolName?: string;
  /** SWE-agent's requery discipline (the sink is the stack's). */
  requery: Omit<RequeryOptions, 'events'>;
  /**
   * Summarising near the model's context window and SWE-agent's `last_n_observations` (the
   * prompt id and sink are the stack's). Default: window unknown (no summary), every output sent.
   */
  contextWindow?: Omit<ContextWindowOptions, 'events' | 'promptMessageId'>;
  /** Budget, time, context, command and stuck limits (clock and sink are the stack's). */
  runLimits: Omit<RunLimitsOptions, 'events' | 'clock'>;
  /** The error the broker raises for a sandbox it cannot reach (default: none is). */
  isSandboxUnreachable?: (error: unknown) => boolean;
  /** Tools never offered to the model (default none). */
  excludedTools?: readonly string[];
  /** The tool that opens or updates pull requests (default `commit_and_open_pr`). */
  pullRequestToolName?: string;
  /** Tools whose `command` runs in a shell, read by the PR guards (default `execute`). */
  shellToolNames?: readonly string[];
  /** The requester's "always create PRs" policy, kept by the creation guard (default: off). */
  pullRequestPolicy?: PullRequestPolicy;
  /** Plan mode (default: runs start editing and nothing is hidden). */
  planMode?: PlanModeSettings;
  /**
   * Outputs over `maxChars` characters written to `<root>/<run id>/<call id>.txt` in the sandbox
   * (default root `.git/caravel-outputs`), the model reading where, their size and a preview
   * (default: off).
   */
  offloadToolOutput?: { maxChars: number; store: ToolOutputStore; root?: string };
}

const NO_STORE: ToolOutputStore = {
  save: () => Promise.reject(new Error('no store for offloaded outputs')),
};

type Builders = Record<MiddlewareName, () => AgentMiddleware>;

function builders(o: MiddlewareStackOptions): Builders {
  const { ports } = o;
  const shells = o.shellToolNames ? { shellToolNames: o.shellToolNames } : {};
  return {
    'prepare-agent-run': () =>
      prepareAgentRunMiddleware({
        preparation: ports.preparation ?? NO_PREPARATION,
        isSandboxUnreachable: o.isSandboxUnreachable ?? (() => false),
        events: ports.events,
      }),
    'sanitize-tool-inputs': () => sanitizeToolInputsMiddleware({ maxArgBytes: o.maxToolArgBytes }),
    'model-call-limit': () =>
      modelCallLimitMiddleware({
        limit: o.modelCallLimit,
        promptMessageId: o.run.promptMessageId,
      }),
    'tool-errors': () => toolErrorsMiddleware(),
    'offload-tool-output': () =>
      offloadToolOutputMiddleware({
        maxChars: o.offloadToolOutput?.maxChars ?? 0,
        store: o.offloadToolOutput?.store ?? NO_STORE,
        directory: `${o.offloadToolOutput?.root ?? OFFLOAD_ROOT}/${o.run.runId}`,
        events: ports.events,
      }),
    'exclude-tools': () =>
      excludeToolsMiddleware({ excluded: o.excludedTools ?? [], events: ports.events }),
    'scoped-agents-md': () =>
      scopedAgentsMdMiddleware({
        finder: ports.agentsFiles,
        events: ports.events,
        readToolName: o.readToolName,
      }),
    'pull-request-creation-guard': () =>
      pullRequestCreationGuardMiddleware({
        events: ports.events,
        pullRequestToolName: o.pullRequestToolName ?? 'commit_and_open_pr',
        ...shells,
        ...(o.pullRequestPolicy ? { policy: o.pullRequestPolicy } : {}),
      }),
    'pull-request-verdict-guard': () =>
      pullRequestVerdictGuardMiddleware({ events: ports.events, ...shells }),
    'message-queue': () =>
      messageQueueMiddleware({
        threadId: o.threadId,
        queue: ports.queue,
        isTrustedAuthor: o.isTrustedAuthor,
        events: ports.events,
        ...(ports.userInstructions ? { userInstructions: ports.userInstructions } : {}),
      }),
    'slack-assistant-status': () =>
      slackAssistantStatusMiddleware({
        status: ports.assistantStatus ?? NO_STATUS,
        events: ports.events,
      }),
    'ensure-no-empty-message': () =>
      ensureNoEmptyMessageMiddleware({ replyToolName: o.replyToolName, maxNudges: o.maxNudges }),
    'step-limit-notice': () =>
      stepLimitNoticeMiddleware({
        threadId: o.threadId,
        limit: o.modelCallLimit,
        noticeAt: o.stepLimitNoticeAt,
        promptMessageId: o.run.promptMessageId,
        notifier: ports.notifier,
        events: ports.events,
      }),
    'sandbox-circuit-breaker': () =>
      sandboxCircuitBreakerMiddleware({
        threshold: o.circuitBreakerThreshold,
        classify: o.classifyInfrastructureFailure,
        events: ports.events,
      }),
    requery: () => requeryMiddleware({ ...o.requery, events: ports.events }),
    'context-window': () =>
      contextWindowMiddleware({
        contextWindow: 0,
        ...o.contextWindow,
        promptMessageId: o.run.promptMessageId,
        events: ports.events,
      }),
    'run-limits': () =>
      runLimitsMiddleware({ ...o.runLimits, events: ports.events, clock: ports.clock }),
    'model-fallback': () =>
      modelFallbackMiddleware({
        primary: o.primaryModel,
        fallback: o.fallbackModel,
        events: ports.events,
      }),
    'plan-mode': () =>
      planModeMiddleware({
        initialMode: o.planMode?.initialMode ?? 'edit',
        mutatingTools: o.planMode?.mutatingTools ?? [],
        events: ports.events,
      }),
    'model-retry': () =>
      modelRetryMiddleware({
        provider: o.primaryModel.provider,
        maxRetries: o.modelRetries ?? 3,
        clock: ports.clock,
        events: ports.events,
      }),
    'strip-empty-thinking': () => stripEmptyThinkingMiddleware({ events: ports.events }),
    'model-call-timeout': () =>
      modelCallTimeoutMiddleware({ timeoutMs: o.modelCallTimeoutMs, clock: ports.clock }),
    'message-identity': () => messageIdentityMiddleware(o.run),
  };
}

/**
 * Builds one run's middleware stack in {@link MIDDLEWARE_ORDER} (outermost first), ready for
 * `createAgent({ middleware })`. Build a fresh stack per run: some units keep per-run memory.
 * The fallback unit is always present and passes calls through when no usable fallback is set,
 * so the stack's shape does not depend on configuration. `only` keeps a subset, in that same
 * order (a subagent's stack is {@link SUBAGENT_MIDDLEWARE}).
 */
export function buildMiddlewareStack(
  options: MiddlewareStackOptions,
  only: readonly MiddlewareName[] = MIDDLEWARE_ORDER,
): AgentMiddleware[] {
  const byName = builders(options);
  return MIDDLEWARE_ORDER.filter((name) => only.includes(name)).map((name) => byName[name]());
}
